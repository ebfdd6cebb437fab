package master

import "sync"

// workQueue collects what changed between two passes of the loop: the
// agents whose outbox changed, a changed rules file, or "everything" after
// an overflow or on the reconcile tick; and the files that appeared in
// inboxes, or "every inbox" at start and after an overflow. Events merge;
// the loop takes them all.
type workQueue struct {
	mu           sync.Mutex
	dirty        map[string]bool
	all          bool
	rulesChanged bool
	arrived      map[string][]arrival // files that appeared in inboxes, by agent
	allInboxes   bool
	ready        chan struct{}
}

func newWorkQueue() workQueue {
	return workQueue{dirty: make(map[string]bool), arrived: make(map[string][]arrival), ready: make(chan struct{}, 1)}
}

func (q *workQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *workQueue) mark(agent string) {
	q.mu.Lock()
	q.dirty[agent] = true
	q.mu.Unlock()
	q.signal()
}

func (q *workQueue) markAll() {
	q.mu.Lock()
	q.all = true
	q.mu.Unlock()
	q.signal()
}

func (q *workQueue) markRules() {
	q.mu.Lock()
	q.rulesChanged = true
	q.mu.Unlock()
	q.signal()
}

func (q *workQueue) take() (dirty map[string]bool, rulesChanged, all bool) {
	q.mu.Lock()
	rulesChanged, q.rulesChanged = q.rulesChanged, false
	q.mu.Unlock()
	dirty, all = q.takeOutboxes()
	return dirty, rulesChanged, all
}

// takeOutboxes takes the outboxes marked, and leaves a change of the rules
// marked: one marked while the rules were being reloaded (the file written
// again, or its wait to stand still run out) is looked at on the next
// turn, never dropped.
func (q *workQueue) takeOutboxes() (dirty map[string]bool, all bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	dirty, all = q.dirty, q.all
	q.dirty, q.all = make(map[string]bool), false
	return dirty, all
}

// arrival is a file that appeared in an inbox, or was written to there.
type arrival struct {
	path    string
	written bool // written to in place, which the master never does
}

func (q *workQueue) markArrival(agent string, a arrival) {
	q.mu.Lock()
	q.arrived[agent] = append(q.arrived[agent], a)
	q.mu.Unlock()
	q.signal()
}

func (q *workQueue) markInboxes() {
	q.mu.Lock()
	q.allInboxes = true
	q.mu.Unlock()
	q.signal()
}

func (q *workQueue) takeArrivals() (arrived map[string][]arrival, all bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	arrived, all = q.arrived, q.allInboxes
	q.arrived, q.allInboxes = make(map[string][]arrival), false
	return arrived, all
}
