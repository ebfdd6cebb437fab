package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"switchboard/internal/atomicfile"
	"switchboard/workspace"

	"github.com/fsnotify/fsnotify"

	"switchboard/mailbox"
)

// floorRelay is the least a router can do, the floor of REFERENCE.md: for
// each file created in an outbox it reads the file, parses it, and publishes
// the same bytes into each recipient's inbox through a temporary file and a
// rename, fsyncing the file and the inbox folder when durable. No rules, no
// log, no move out of the outbox. Like the master, one goroutine reads
// events and another does the work.
type floorRelay struct {
	store *mailbox.Store
	fsw   *fsnotify.Watcher
	work  chan string
	done  chan struct{}

	mu  sync.Mutex
	err error // the first failure
}

// startFloor watches every outbox of ws and relays until stop.
func startFloor(ws *testbed, durable bool) (*floorRelay, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("floor relay: %w", err)
	}
	store := workspace.New(ws.root).Store
	store.Durable = durable
	f := &floorRelay{store: store, fsw: fsw, work: make(chan string, 1<<16), done: make(chan struct{})}
	for _, agent := range ws.agents {
		if err := fsw.Add(store.OutboxDir(agent)); err != nil {
			fsw.Close()
			return nil, fmt.Errorf("floor relay: watch outbox of %s: %w", agent, err)
		}
	}
	var workers sync.WaitGroup
	workers.Add(2)
	go func() {
		defer workers.Done()
		f.readEvents()
	}()
	go func() {
		defer workers.Done()
		for path := range f.work {
			if err := f.relay(path); err != nil {
				f.fail(err)
			}
		}
	}()
	go func() {
		workers.Wait()
		close(f.done)
	}()
	return f, nil
}

func (f *floorRelay) readEvents() {
	defer close(f.work)
	for {
		select {
		case ev, ok := <-f.fsw.Events:
			if !ok {
				return
			}
			name := filepath.Base(ev.Name)
			if ev.Has(fsnotify.Create) && !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".json") {
				f.work <- ev.Name
			}
		case err, ok := <-f.fsw.Errors:
			if !ok {
				return
			}
			// The floor keeps no state to rescan from: what an overflow
			// loses shows up as lost messages.
			f.fail(fmt.Errorf("floor relay: %w", err))
		}
	}
}

func (f *floorRelay) relay(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("floor relay: %w", err)
	}
	msg, err := mailbox.Parse(data)
	if err != nil {
		return fmt.Errorf("floor relay: %s: %w", filepath.Base(path), err)
	}
	name := mailbox.FileName(time.Now(), msg.Priority, msg.ID)
	for _, to := range msg.To {
		if err := atomicfile.WriteFile(filepath.Join(f.store.InboxDir(to), name), data, atomicfile.Options{TmpDir: f.store.TmpDir(to), Durable: f.store.Durable}); err != nil {
			return fmt.Errorf("floor relay: %w", err)
		}
	}
	return nil
}

func (f *floorRelay) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

// exited is never closed: the floor runs in this process and stops only
// when told to.
func (f *floorRelay) exited() <-chan struct{} { return nil }

// stop ends the relay and returns its first failure, if any.
func (f *floorRelay) stop() error {
	f.fsw.Close()
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}
