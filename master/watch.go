package master

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"switchboard/conversation"
	"switchboard/internal/watch"
	"switchboard/mailbox"
)

// watcher turns filesystem events into work: an outbox changed, the rules
// file changed, or everything must be rescanned. With Options.Poll it has no
// fsnotify watcher and a ticker marks everything instead.
type watcher struct {
	fs      *fsnotify.Watcher // nil when polling
	mu      sync.Mutex
	outbox  map[string]string // outbox folder -> agent
	inbox   map[string]string // inbox and read folder -> agent
	home    map[string]string // agent's folder (its state file) -> agent
	cancel  context.CancelFunc
	stopped chan struct{}
}

// Watches is how many folders the master watches for a team of agents
// (the operator included): the workspace and the mailboxes folder, and
// each agent's folder (for its state), outbox, inbox and read folder.
func Watches(agents int) int { return 2 + 4*agents }

// ErrNoInotify is returned when the master cannot watch with inotify:
// polling works where it does not.
var ErrNoInotify = errors.New("inotify unavailable")

func (m *Master) startWatching(ctx context.Context) (*watcher, error) {
	ctx, cancel := context.WithCancel(ctx)
	w := &watcher{outbox: make(map[string]string), inbox: make(map[string]string), home: make(map[string]string), cancel: cancel, stopped: make(chan struct{})}
	if m.opts.Poll > 0 {
		go func() {
			defer close(w.stopped)
			watch.Every(ctx, m.opts.Poll, func() bool {
				m.work.markAll()
				m.work.markRules()
				m.statesChanged() // no event tells of a state file
				return false
			})
		}()
		return w, nil
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%w: start fsnotify: %w", ErrNoInotify, err)
	}
	// The workspace folder is watched rather than the rules file, so that an
	// editor replacing the file by rename is seen too.
	// The mailboxes folder holds the registry of spawned agents.
	for _, dir := range []string{m.root, m.store.Dir} {
		if err := fsw.Add(dir); err != nil {
			cancel()
			fsw.Close()
			return nil, fmt.Errorf("watch %s: %w", dir, err)
		}
	}
	w.fs = fsw
	go func() {
		defer close(w.stopped)
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-fsw.Events:
				if !ok {
					return
				}
				m.handleEvent(w, ev)
			case err, ok := <-fsw.Errors:
				if !ok {
					return
				}
				if errors.Is(err, fsnotify.ErrEventOverflow) {
					m.logf("fsnotify queue overflowed: rescanning every outbox and inbox")
				} else {
					m.logf("fsnotify: %v; rescanning every outbox and inbox", err)
				}
				m.work.markAll()
				m.work.markInboxes()
				m.panes.Wake() // a state file's event may be among those lost
				m.statesChanged()
			}
		}
	}()
	return w, nil
}

func (m *Master) handleEvent(w *watcher, ev fsnotify.Event) {
	path := filepath.Clean(ev.Name)
	dir := filepath.Dir(path)
	if dir == m.root || dir == m.store.Dir {
		if (path == m.ws.RulesPath() || path == m.ws.SpawnedFile()) && !ev.Has(fsnotify.Chmod) {
			m.work.markRules()
		}
		if path == m.ws.SessionFile() {
			m.panes.Wake() // a team brought up, or an agent spawned or closed
		}
		return
	}
	clean := filepath.Clean(ev.Name)
	w.mu.Lock()
	homeOf, isHome := w.home[dir]
	_, inInbox := w.inbox[dir]
	agent, isOutbox := w.outbox[clean]
	inboxAgent, isInbox := w.inbox[clean]
	w.mu.Unlock()
	// A hook said how its agent is, or mail came or was read: the panes'
	// borders, the bulletin and what waits to be typed follow.
	if isHome && path == conversation.Of(m.store).StatePath(homeOf) {
		m.panes.Wake()
		m.statesChanged()
		return
	}
	if inInbox {
		m.panes.Wake()
	}
	// An outbox or inbox removed (rm -rf) is made again and watched again
	// at once: the next message into it must not wait for the reconcile
	// scan, nor a file put there by hand go unseen.
	if (isOutbox || isInbox) && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
		if isInbox {
			agent = inboxAgent
		}
		m.rewatch(w, agent, clean, 0)
		return
	}
	// Files leaving the outbox (routed, rejected) need no work, nor do
	// temporaries that a writer will rename into place.
	if !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Write) {
		return
	}
	name := filepath.Base(path)
	message, errand := strings.HasSuffix(name, ".json"), mailbox.IsErrandName(name)
	if strings.HasPrefix(name, ".") || !message && !errand {
		return
	}
	w.mu.Lock()
	agent, ok := w.outbox[dir]
	inboxOf, isInbox := w.inbox[dir]
	w.mu.Unlock()
	switch {
	case ok:
		m.work.mark(agent) // a message, or an errand for the hub
	case isInbox && message && (ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write)):
		m.work.markArrival(inboxOf, arrival{path: ev.Name, written: ev.Has(fsnotify.Write)})
	}
}

// rewatch makes an agent's mailbox folders again after one was removed,
// watches the folder again, and has the outbox scanned and the inbox
// checked: what came before the watch is found. While the folder cannot be
// made (a file took its name) it tries again, each time after a longer
// wait, saying so the first time.
func (m *Master) rewatch(w *watcher, agent, dir string, failures int) {
	select {
	case <-w.stopped:
		return // the master stopped meanwhile
	default:
	}
	err := m.unlink(agent)
	if err == nil {
		err = m.store.Ensure(agent)
	}
	if err == nil && w.fs != nil {
		err = w.fs.Add(dir)
	}
	if err == nil && w.fs != nil {
		// The agent's folder may have gone with it: its state file's
		// events come from its watch.
		err = w.fs.Add(m.store.AgentDir(agent))
	}
	if err != nil {
		if failures == 0 {
			m.logf("%s of %s was removed and cannot be watched again yet: %v; trying until it can", filepath.Base(dir), agent, err)
		}
		wait := min(time.Second<<min(failures, 5), 30*time.Second)
		time.AfterFunc(wait, func() { m.rewatch(w, agent, dir, failures+1) })
		return
	}
	if failures > 0 {
		m.logf("%s of %s is watched again", filepath.Base(dir), agent)
	}
	m.work.mark(agent)
	m.work.markInboxes()
}

// watchAs records dirs as agent's in folders, the map that tells
// handleEvent what they are, and watches them.
func (w *watcher) watchAs(folders map[string]string, agent string, dirs ...string) error {
	w.mu.Lock()
	for _, dir := range dirs {
		folders[dir] = agent
	}
	w.mu.Unlock()
	if w.fs == nil {
		return nil
	}
	for _, dir := range dirs {
		if err := w.fs.Add(dir); err != nil {
			return err
		}
	}
	return nil
}

// add watches an agent's outbox. Files already there are found by the scan
// that follows, which runs after the watch is in place.
func (w *watcher) add(dir, agent string) error {
	if err := w.watchAs(w.outbox, agent, dir); err != nil {
		return fmt.Errorf("%w: watch outbox of %s (raise fs.inotify.max_user_watches): %w", ErrNoInotify, agent, err)
	}
	return nil
}

// addHome watches an agent's folder, where its hooks write its state.
func (w *watcher) addHome(agent, dir string) error {
	if err := w.watchAs(w.home, agent, dir); err != nil {
		return fmt.Errorf("watch the folder of %s: %w", agent, err)
	}
	return nil
}

// addInbox watches an agent's inbox and read folders, where only the master
// writes, to catch files put there by anyone else. Without the watch such a
// file is still shown as unverified; it is reported when the inboxes are
// checked next.
func (w *watcher) addInbox(agent string, dirs ...string) error {
	if err := w.watchAs(w.inbox, agent, dirs...); err != nil {
		return fmt.Errorf("watch inbox of %s: %w", agent, err)
	}
	return nil
}

func (w *watcher) close() {
	w.cancel()
	<-w.stopped
	if w.fs != nil {
		// Closing an inotify instance waits in the kernel until every
		// watch is let go of, which on a loaded machine has taken over
		// ten seconds: the master stops without waiting for it.
		go w.fs.Close()
	}
}
