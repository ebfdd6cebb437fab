package master

import (
	"maps"
	"os"
	"slices"
)

// inboxSweep is the check of every unread file of every inbox, which finds
// files put there that no event told of (an overflow of events, a write
// through another link or a mapping). It goes a chunk at a time, so that
// routing never waits for a sweep of a large inbox: the sweep at start,
// or after an overflow, hurries (the loop comes back at once for the next
// chunk); the one each reconcile tick starts takes a chunk a tick, so that
// a hundred thousand unread files cost nothing at rest. Used by the loop
// alone.
type inboxSweep struct {
	queue []sweptFile // the files left to check, in the order listed
	hurry bool
}

// sweptFile is a file of an inbox the sweep is to check.
type sweptFile struct{ agent, name string }

// A pass of the loop looks at up to sweepChunk files of the sweep (a stat
// each), and reads, to check them, those it has not checked as they are
// now, up to sweepBytes of them: a restart under a large inbox of large
// messages makes routing wait no more than that between passes.
const (
	sweepChunk = 1000
	sweepBytes = 1 << 20
)

// startSweep lists every inbox for a sweep, unless one is under way and
// this one need not hurry; a hurried sweep (at start, after events were
// lost) lists them anew, as the files whose events were lost are not in
// the listing under way. What was read since the last listing is
// forgotten: it does not come back.
func (m *Master) startSweep(hurry bool) {
	s := &m.sweep
	if len(s.queue) > 0 && !hurry {
		return
	}
	s.queue, s.hurry = s.queue[:0], hurry
	listed := make(map[uint64]bool)
	for _, agent := range slices.Sorted(maps.Keys(m.watched)) {
		names, err := m.store.UnreadNames(agent)
		if err != nil {
			continue
		}
		for _, name := range names {
			s.queue = append(s.queue, sweptFile{agent, name})
			listed[knownKey(agent, name)] = true
		}
	}
	maps.DeleteFunc(m.known, func(key uint64, _ fileID) bool { return !listed[key] })
	if len(s.queue) == 0 {
		s.hurry = false
	}
}

// sweepNext adds to arrived the files of the sweep's next chunk that were
// not checked as they are now, and reports whether a hurried sweep has
// more to check.
func (m *Master) sweepNext(arrived map[string][]arrival) (more bool) {
	s := &m.sweep
	n, size := 0, int64(0)
	for n < len(s.queue) && n < sweepChunk && size < sweepBytes {
		f := s.queue[n]
		n++
		path := m.store.UnreadPath(f.agent, f.name)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() || m.stillKnown(knownKey(f.agent, f.name), fi) {
			continue // gone (read, or removed), not a file a reader lists, or checked as it is
		}
		arrived[f.agent] = append(arrived[f.agent], arrival{path: path})
		size += fi.Size()
	}
	s.queue = slices.Delete(s.queue, 0, n)
	if len(s.queue) == 0 {
		s.queue, s.hurry = nil, false
	}
	return s.hurry
}
