package hub

import (
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
)

// answerBox hears the hub's answers to the copies of PublishAll on one
// subscription for the life of the connection, each answer on
// <prefix>.<batch>.<copy>. A subscription a batch would cost the server
// an interest added and taken away for every copy sent alone, which in a
// host's account with the team's imports is a tenth of what a copy costs
// the hub.
type answerBox struct {
	nc *nats.Conn

	mu      sync.Mutex
	sub     *nats.Subscription
	prefix  string
	next    uint64
	waiting map[uint64]chan<- answer
}

// answer is the hub's answer to the copy at index of a batch.
type answer struct {
	index int
	msg   *nats.Msg
}

// open returns the reply prefix of a new batch and the channel its answers
// come on, room made for n of them; done forgets the batch.
func (b *answerBox) open(n int) (prefix string, answers <-chan answer, done func(), err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sub == nil || !b.sub.IsValid() {
		prefix := b.nc.NewInbox()
		sub, err := b.nc.Subscribe(prefix+".*.*", b.hear)
		if err != nil {
			return "", nil, nil, err
		}
		b.sub, b.prefix, b.waiting = sub, prefix, make(map[uint64]chan<- answer)
	}
	b.next++
	id := b.next
	ch := make(chan answer, n)
	b.waiting[id] = ch
	done = func() {
		b.mu.Lock()
		delete(b.waiting, id)
		b.mu.Unlock()
	}
	return b.prefix + "." + strconv.FormatUint(id, 10), ch, done, nil
}

// hear hands an answer to the batch that waits for it; one for a batch
// that gave up, or of a form the hub does not send, is dropped.
func (b *answerBox) hear(m *nats.Msg) {
	rest, ok := strings.CutPrefix(m.Subject, b.prefix+".")
	if !ok {
		return
	}
	batch, copyIndex, ok := strings.Cut(rest, ".")
	id, err1 := strconv.ParseUint(batch, 10, 64)
	index, err2 := strconv.Atoi(copyIndex)
	if !ok || err1 != nil || err2 != nil {
		return
	}
	b.mu.Lock()
	ch := b.waiting[id]
	b.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- answer{index: index, msg: m}:
	default: // more answers than copies: not the hub's
	}
}
