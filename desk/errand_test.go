package desk

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"switchboard/bulletin"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/master/link/errand"
	"switchboard/workspace"
)

// fakeMaster holds the workspace's master lock and answers the errands of
// agent as answer says, until the test ends or stop is called; an errand
// answer leaves unanswered stops it, as a master that dies.
type fakeMaster struct {
	stop  func()
	asked chan errand.Errand
}

func startFakeMaster(t *testing.T, ws *workspace.Workspace, agent string, answer func(errand.Errand) (errand.Answer, bool)) *fakeMaster {
	t.Helper()
	for _, a := range []string{agent, mailbox.Operator} {
		if err := ws.Store.Ensure(a); err != nil {
			t.Fatal(err)
		}
	}
	lk, err := ws.LockMaster()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	f := &fakeMaster{asked: make(chan errand.Errand, 16)}
	f.stop = func() { cancel(); <-done }
	go func() {
		defer close(done)
		defer lk.Release()
		watch.Every(ctx, 5*time.Millisecond, func() bool {
			_, paths, _ := ws.Store.Outbox(agent)
			for _, path := range paths {
				e, err := errand.In(ws.Store).Open(agent, path)
				if err != nil {
					continue
				}
				f.asked <- *e
				a, ok := answer(*e)
				if !ok {
					return true
				}
				if err := errand.In(ws.Store).Reply(agent, mailbox.ErrandID(path), a); err != nil {
					t.Error(err)
				}
				os.Remove(path)
			}
			return false
		})
	}()
	t.Cleanup(f.stop)
	return f
}

// TestTheDeskTakesTheMastersAnswer: in a workspace that is a host of a team
// across machines, each refusal of the master is the error of the command
// that asked; a master that joins no hub after all leaves the lock to this
// host.
func TestTheDeskTakesTheMastersAnswer(t *testing.T) {
	ws, d := defaultTeam(t)
	if err := ws.WriteHubHost(workspace.HubHost{Host: "laptop"}); err != nil {
		t.Fatal(err)
	}
	m := startFakeMaster(t, ws, "tester_agent", func(e errand.Errand) (errand.Answer, bool) {
		switch e.Resource {
		case "held":
			return errand.Answer{Refused: errand.RefusedHeld, Holder: "developer_agent", Host: "gpu", Reason: "held"}, true
		case "away":
			return errand.Answer{Refused: errand.RefusedHubAway, Reason: "hub: unreachable"}, true
		case "no hub":
			return errand.Answer{Refused: errand.RefusedNoHub}, true
		case "mine":
			return errand.Answer{Revision: 7}, true
		}
		if e.Kind == errand.SetState {
			return errand.Answer{Refused: errand.RefusedInvalid, Reason: "the value is \x1b[31mred"}, true
		}
		return errand.Answer{}, false
	})
	if err := d.Lock("held", ""); !errors.Is(err, bulletin.ErrHeld) || !strings.Contains(err.Error(), "developer_agent on host gpu") {
		t.Errorf("a lock held on another host: %v", err)
	}
	if err := d.Lock("away", ""); !errors.Is(err, ErrHubAway) {
		t.Errorf("a lock with the hub away: %v", err)
	}
	if err := d.Lock("no hub", ""); err != nil {
		t.Errorf("a lock in a workspace whose master joins no hub: %v", err)
	}
	if err := d.SetState("k", json.RawMessage(`1`)); err == nil || !strings.Contains(err.Error(), "the master refused the request") || strings.Contains(err.Error(), "\x1b") {
		t.Errorf("a value the master refused: %q; want the refusal, escaped", err)
	}
	b, _ := bulletin.Of(ws).Read()
	if _, ok := b.SharedResources["held"]; ok {
		t.Error("a lock held on another host was taken here")
	}
	if _, ok := b.SharedResources["away"]; ok {
		t.Error("a lock the hub did not take was taken here")
	}
	if _, ok := b.SharedResources["no hub"]; !ok {
		t.Error("a lock in a workspace whose master joins no hub was not taken here")
	}
	for range 4 {
		<-m.asked
	}
	if err := d.Lock("mine", ""); err != nil {
		t.Fatal(err)
	}
	<-m.asked

	// A master that stops before it answers: the request is taken back,
	// and the command says so as soon as it sees.
	start := time.Now()
	err := d.Lock("silent", "")
	if !errors.Is(err, ErrNoMaster) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("a lock whose master stopped: %v", err)
	}
	if took := time.Since(start); took >= errandWait {
		t.Errorf("it took %s to notice the master stopped", took)
	}
	if _, paths, _ := ws.Store.Outbox("tester_agent"); len(paths) != 0 {
		t.Errorf("the errand was left behind: %q", paths)
	}

	// And with no master at all, the command fails at once, asking nothing.
	m.stop()
	if err := d.Lock("later", ""); !errors.Is(err, ErrNoMaster) || !strings.Contains(err.Error(), "host laptop") {
		t.Errorf("a lock with no master: %v", err)
	}
	if _, paths, _ := ws.Store.Outbox("tester_agent"); len(paths) != 0 {
		t.Errorf("an errand was left with no master to take it: %q", paths)
	}
}
