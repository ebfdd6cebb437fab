package master

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/internal/atomicfile"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/rules"
)

// teamRules is the default team's rules, as the tests of this package use them.
const teamRules = `allowed_interactions:
  master_agent:
    can_send_to: ["*"]
    can_receive_from: ["*"]
  developer_agent:
    can_send_to: [master_agent, reviewer_agent, tester_agent]
    can_receive_from: [master_agent, reviewer_agent, tester_agent]
  reviewer_agent:
    can_send_to: [master_agent, developer_agent]
    can_receive_from: [master_agent, developer_agent]
  tester_agent:
    can_send_to: [master_agent, developer_agent]
    can_receive_from: [master_agent, developer_agent]
forbidden_interactions:
  - from: tester_agent
    to: reviewer_agent
    reason: "Should go through developer first"
oversight: [master_agent]
`

// syncBuffer is the master's log, read by the test while the master writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// forget drops what was written so far, and the memory it took.
func (b *syncBuffer) forget() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = bytes.Buffer{}
}

type harness struct {
	t     *testing.T
	root  string
	store *mailbox.Store
	log   *syncBuffer
	// syncs, when set, hears of every sync the masters started make of
	// the log, of a copy, or of an inbox folder.
	syncs atomicfile.SyncHook
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessIn(t, t.TempDir())
}

// newHarnessIn is newHarness with the workspace in root.
func newHarnessIn(t *testing.T, root string) *harness {
	t.Helper()
	writeFile(t, filepath.Join(root, rules.FileName), teamRules)
	store := mailbox.NewStore(root)
	store.Durable = false
	return &harness{t: t, root: root, store: store, log: &syncBuffer{}}
}

// start runs a master until the test ends, or until the returned stop is
// called; stop waits for Run to return and hands back its error.
func (h *harness) start(opts Options) (stop func() error) {
	h.t.Helper()
	stop = h.run(opts)
	h.waitFor("master to start", func() bool { return strings.Contains(h.log.String(), "master running") })
	return stop
}

// run is start without waiting for the master to say it runs.
func (h *harness) run(opts Options) (stop func() error) {
	h.t.Helper()
	if opts.Settle == 0 {
		opts.Settle = 200 * time.Millisecond
	}
	opts.Log = h.log
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	m := New(h.root, opts)
	m.store.Hook = h.syncs
	go func() { done <- m.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				var stacks strings.Builder
				_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1)
				h.t.Errorf("master did not stop within 10s; its goroutines:\n%s", stacks.String())
			}
		})
		return err
	}
	h.t.Cleanup(func() { stop() })
	return stop
}

// drop writes raw bytes into an agent's outbox the way an agent that knows
// nothing of atomic writes would.
func (h *harness) drop(agent, name, content string) string {
	h.t.Helper()
	dir := h.store.OutboxDir(agent)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	writeFile(h.t, path, content)
	return path
}

func (h *harness) inbox(agent string, box mailbox.Box) []*mailbox.Message {
	h.t.Helper()
	entries, err := h.store.List(agent, box)
	if err != nil {
		h.t.Fatal(err)
	}
	var msgs []*mailbox.Message
	for _, e := range entries {
		m, err := mailbox.Load(e.Path)
		if err != nil {
			h.t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func (h *harness) records() []mailbox.Record {
	h.t.Helper()
	recs, _, err := mailbox.ReadLog(h.store.LogPath(), 0)
	if err != nil {
		h.t.Fatal(err)
	}
	return recs
}

// waitFor polls cond until it holds, failing the test after 30 seconds: a
// bound on a wait, not a measure of speed, generous enough for a machine
// loaded by other work.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	if !watch.Until(context.Background(), 5*time.Millisecond, 30*time.Second, cond) {
		h.t.Fatalf("timed out waiting for %s; master log:\n%s", what, h.log.String())
	}
}

// waitInbox waits until the agent's inbox holds n messages, and fails the
// test when it holds more: a copy delivered twice is a failure.
func (h *harness) waitInbox(agent string, n int) []*mailbox.Message {
	h.t.Helper()
	h.waitFor(agent+" to have "+strconv.Itoa(n)+" messages", func() bool { return len(h.inbox(agent, mailbox.All)) >= n })
	got := h.inbox(agent, mailbox.All)
	if len(got) > n {
		h.t.Fatalf("%s's inbox holds %d messages; want exactly %d: %q\nmaster log:\n%s", agent, len(got), n, titles(got), h.log.String())
	}
	return got
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// putFileInPlaceOf removes a mailbox folder and puts a file where it was,
// so that the master cannot make it again. The master makes a removed
// folder again at once: the file must win a race.
func (h *harness) putFileInPlaceOf(dir string) {
	h.t.Helper()
	h.waitFor("a file to take the place of "+filepath.Base(dir), func() bool {
		os.RemoveAll(dir)
		f, err := os.OpenFile(dir, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return false
		}
		f.Close()
		return true
	})
}
