package hub

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// writer makes the writes hosts ask of the hub (writes.go), with the hub's
// own connection, in the team's account.
type writer struct {
	n  names
	js jetstream.JetStream
	// busy bounds the writes of keys under way: a host that floods the hub
	// with them waits, and its requests time out, before the hub runs out
	// of anything.
	busy chan struct{}

	mu  sync.Mutex
	kvs map[string]jetstream.KeyValue
}

// writesAtOnce bounds the writes of keys under way at once.
const writesAtOnce = 256

// writeWait bounds one write.
const writeWait = 10 * time.Second

// serve answers one write; the asking host is the last token of its
// subject, which only that host may publish to. The copies of mail are
// published in the order asked, so that a host's copies are stored in the
// order it sent them.
func (w *writer) serve(m *nats.Msg) {
	host := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
	if !validName(host) || m.Reply == "" {
		return
	}
	switch m.Header.Get(writeOp) {
	case writeMail:
		w.mail(host, m)
	case writePut, writeCreate, writeUpdate, writeDelete:
		w.busy <- struct{}{}
		go func() {
			defer func() { <-w.busy }()
			w.key(host, m)
		}()
	default:
		answerWrite(m, 0, false, writeRefused(errWriteBad))
	}
}

// maxCopyID bounds the id of a message, as a copy carries it.
const maxCopyID = 256

// mail publishes a copy under the asking host's name, with the id the hub
// drops a re-publish by: the host's name in it, so that no host's id can
// be another's.
func (w *writer) mail(host string, m *nats.Msg) {
	toHost, to, id, from := m.Header.Get(writeToHost), m.Header.Get(writeTo), m.Header.Get(headerID), m.Header.Get(headerFrom)
	if !validName(toHost) || !validName(to) || !validName(from) || id == "" || len(id) > maxCopyID || strings.ContainsAny(id, "\r\n\x00") {
		answerWrite(m, 0, false, fmt.Errorf("%w: a copy needs well-formed hosts, agents and an id", writeRefused(errWriteBad)))
		return
	}
	msg := &nats.Msg{Subject: w.n.mail(toHost, host, to), Header: nats.Header{}, Data: m.Data}
	msg.Header.Set(headerID, id)
	msg.Header.Set(headerFrom, from)
	msg.Header.Set(nats.MsgIdHdr, host+"/"+id+"/"+to)
	f, err := w.js.PublishMsgAsync(msg)
	if err != nil {
		answerWrite(m, 0, false, err)
		return
	}
	go func() {
		select {
		case ack := <-f.Ok():
			answerWrite(m, ack.Sequence, ack.Duplicate, nil)
		case err := <-f.Err():
			answerWrite(m, 0, false, err)
		}
	}()
}

// key writes a key of a bucket, if it is the asking host's to write.
func (w *writer) key(host string, m *nats.Msg) {
	bucket, key := m.Header.Get(writeBucket), m.Header.Get(writeKey)
	if !w.n.mayWrite(host, bucket, key) {
		answerWrite(m, 0, false, fmt.Errorf("%w: host %s may not write %q of %s", writeRefused(errWriteDenied), host, key, bucket))
		return
	}
	rev, _ := strconv.ParseUint(m.Header.Get(writeRevision), 10, 64)
	ctx, cancel := context.WithTimeout(context.Background(), writeWait)
	defer cancel()
	kv, err := w.bucket(ctx, bucket)
	if err != nil {
		answerWrite(m, 0, false, err)
		return
	}
	switch m.Header.Get(writeOp) {
	case writePut:
		rev, err = kv.Put(ctx, key, m.Data)
	case writeCreate:
		rev, err = kv.Create(ctx, key, m.Data)
	case writeUpdate:
		rev, err = kv.Update(ctx, key, m.Data, rev)
	case writeDelete:
		var opts []jetstream.KVDeleteOpt
		if rev > 0 {
			opts = append(opts, jetstream.LastRevision(rev))
		}
		err, rev = kv.Delete(ctx, key, opts...), 0
	}
	answerWrite(m, rev, false, err)
}

// bucket is the hub's handle of a bucket, opened the first time it is
// written.
func (w *writer) bucket(ctx context.Context, name string) (jetstream.KeyValue, error) {
	w.mu.Lock()
	kv, ok := w.kvs[name]
	w.mu.Unlock()
	if ok {
		return kv, nil
	}
	kv, err := w.js.KeyValue(ctx, name)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.kvs[name] = kv
	w.mu.Unlock()
	return kv, nil
}
