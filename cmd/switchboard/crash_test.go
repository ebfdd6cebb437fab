package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// TestKilledMasterDeliversEachMessageExactlyOnce drops 2,000 messages from
// four agents while the master is killed with SIGKILL and started again, over
// and over, then checks that every message is in each recipient's inbox
// exactly once, in the log exactly once, and that seqs run 1..N.
func TestKilledMasterDeliversEachMessageExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("kills the master dozens of times; skipped with -short")
	}
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	store := mailbox.NewStore(root)
	store.Durable = false // the writers stand for agents; the master is durable

	// Who writes to whom. tester_agent → reviewer_agent is forbidden: those
	// messages must be logged as blocked and answered by exactly one notice.
	plans := map[string][][]string{
		"developer_agent": {{"reviewer_agent"}, {"tester_agent"}, {"master_agent", "reviewer_agent"}},
		"reviewer_agent":  {{"developer_agent"}, {"master_agent"}},
		"tester_agent":    {{"developer_agent"}, {"reviewer_agent"}},
		"master_agent":    {{"*"}, {"developer_agent"}},
	}
	const perAgent = 500

	m := startMaster(t, root)
	var sent sync.Map // id -> *mailbox.Message
	var writers sync.WaitGroup
	for agent, plan := range plans {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := range perAgent {
				msg := &mailbox.Message{From: agent, To: plan[i%len(plan)], Title: fmt.Sprintf("%s #%d", agent, i)}
				msg.Normalize(time.Now())
				if _, err := store.Post(agent, msg); err != nil {
					t.Errorf("post: %v", err)
					return
				}
				sent.Store(msg.ID, msg)
				if i%4 == 0 {
					// Spread the writes over a second or so, so that
					// many kills land while messages arrive.
					time.Sleep(5 * time.Millisecond)
				}
			}
		}()
	}
	writersDone := make(chan struct{})
	go func() { writers.Wait(); close(writersDone) }()

	// Kill while messages arrive and while the backlog drains, up to 40
	// times; then one last master drains what is left.
	kills := 0
	writing := true
	for kills < 40 && (writing || !outboxesEmpty(t, store, plans)) {
		select {
		case <-writersDone:
			writing = false
		case <-time.After(time.Duration(10+rand.IntN(40)) * time.Millisecond):
			m.kill(t)
			kills++
			m = startMaster(t, root)
		}
	}
	<-writersDone
	defer m.stop(t)

	deadline := time.Now().Add(2 * time.Minute)
	for !outboxesEmpty(t, store, plans) {
		if time.Now().After(deadline) {
			t.Fatalf("outboxes not drained after 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d kills while 2,000 messages were dropped", kills)
	if kills < 3 {
		t.Errorf("only %d kills: the test did not exercise restarts", kills)
	}

	// Count every copy and every log record by message id.
	copies := make(map[string]map[string]int) // id -> agent -> copies
	notices := make(map[string]int)           // blocked id -> notices
	for _, agent := range []string{"master_agent", "developer_agent", "reviewer_agent", "tester_agent", "operator"} {
		entries, err := store.List(agent, mailbox.All)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			msg, err := mailbox.Load(e.Path)
			if err != nil {
				t.Fatal(err)
			}
			if msg.From == mailbox.System {
				notices[msg.InReplyTo]++
				continue
			}
			if copies[msg.ID] == nil {
				copies[msg.ID] = make(map[string]int)
			}
			copies[msg.ID][agent]++
		}
	}
	records, _, err := mailbox.ReadLog(store.LogPath(), 0)
	if err != nil {
		t.Fatal(err)
	}
	logged := make(map[string]int)
	for i, rec := range records {
		logged[rec.Message.ID]++
		if rec.Seq != int64(i+1) {
			t.Fatalf("record %d has seq %d; seqs must run 1..N without gaps or repeats", i+1, rec.Seq)
		}
	}

	total, problems := 0, 0
	sent.Range(func(key, value any) bool {
		id, msg := key.(string), value.(*mailbox.Message)
		total++
		report := func(format string, args ...any) {
			if problems++; problems <= 10 {
				t.Errorf("%s (%s → %v): %s", id, msg.From, msg.To, fmt.Sprintf(format, args...))
			}
		}
		if logged[id] != 1 {
			report("logged %d times", logged[id])
		}
		for _, to := range expectedRecipients(msg) {
			if n := copies[id][to]; n != 1 {
				report("%d copies in the inbox of %s", n, to)
			}
		}
		if len(copies[id]) != len(expectedRecipients(msg)) {
			report("delivered to %v", copies[id])
		}
		wantNotices := 0
		if msg.From == "tester_agent" && msg.To[0] == "reviewer_agent" {
			wantNotices = 1
		}
		if notices[id] != wantNotices {
			report("%d BLOCKED notices, want %d", notices[id], wantNotices)
		}
		return true
	})
	if total != len(plans)*perAgent || len(records) != total {
		t.Errorf("sent %d, logged %d; want %d of each", total, len(records), len(plans)*perAgent)
	}
}

func expectedRecipients(msg *mailbox.Message) []string {
	switch {
	case msg.IsBroadcast():
		return []string{"developer_agent", "reviewer_agent", "tester_agent"}
	case msg.From == "tester_agent" && msg.To[0] == "reviewer_agent":
		return nil
	default:
		return msg.To
	}
}

func outboxesEmpty(t *testing.T, store *mailbox.Store, plans map[string][][]string) bool {
	for agent := range plans {
		matches, err := filepath.Glob(filepath.Join(store.OutboxDir(agent), "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(matches) > 0 {
			return false
		}
	}
	return true
}

// masterProcess is a `switchboard master` running as its own process.
type masterProcess struct {
	cmd  *exec.Cmd
	done chan error
	out  *lockedBuffer // what it printed
}

// lockedBuffer is a process's output, read by the test while it writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startMaster(t *testing.T, root string, more ...string) *masterProcess {
	t.Helper()
	return startMasterWith(t, root, nil, more...)
}

// startMasterWith is startMaster with more of the environment (a hub
// password, say).
func startMasterWith(t *testing.T, root string, env []string, more ...string) *masterProcess {
	t.Helper()
	cmd := exec.Command("switchboard", append([]string{"master", "--root", root}, more...)...)
	cmd.Env = append(append(os.Environ(), "SWITCHBOARD_ROOT=", "SWITCHBOARD_AGENT="), env...)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start master: %v", err)
	}
	m := &masterProcess{cmd: cmd, done: make(chan error, 1), out: out}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the master printed:\n%s", out)
		}
	})
	go func() { m.done <- cmd.Wait() }()
	// Wait until it holds the lock and has made every mailbox (a hook run
	// before then finds none, and does nothing), or has failed.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if pid, ok := workspace.New(root).MasterRunning(); ok && pid == cmd.Process.Pid && strings.Contains(out.String(), "master running") {
			return m
		}
		select {
		case err := <-m.done:
			t.Fatalf("master exited at start: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("master did not start within 30s; it printed:\n%s", out)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (m *masterProcess) kill(t *testing.T) {
	t.Helper()
	m.cmd.Process.Signal(syscall.SIGKILL)
	<-m.done
}

func (m *masterProcess) stop(t *testing.T) {
	t.Helper()
	m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-m.done:
		if err != nil {
			t.Errorf("master exited with %v after SIGTERM; want a clean stop", err)
		}
	case <-time.After(10 * time.Second):
		// Go prints every goroutine's stack on SIGQUIT: what it waits for.
		m.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-m.done:
		case <-time.After(5 * time.Second):
			m.cmd.Process.Kill()
		}
		t.Errorf("master did not stop within 10s of SIGTERM (its goroutines follow its log)")
	}
}
