package master

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/bulletin"
	"switchboard/desk"
	"switchboard/hub"
	"switchboard/mailbox"
	"switchboard/master/link/errand"
	"switchboard/rules"
	"switchboard/workspace"
)

// deskOf is the desk of agent on host h, under its rules.
func (h *host) deskOf(agent string) *desk.Desk {
	h.t.Helper()
	ws := workspace.New(h.root)
	r, err := rules.LoadTeam(ws)
	if err != nil {
		h.t.Fatal(err)
	}
	return desk.New(ws, r, agent)
}

// errand leaves e in the agent's outbox as an agent's command would, and
// waits for the master's answer.
func (h *host) errand(agent string, e *errand.Errand) errand.Answer {
	h.t.Helper()
	id, err := errand.In(h.store).Post(agent, e)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.answer(agent, id)
}

// answer waits for the master's answer to the agent's errand id.
func (h *host) answer(agent, id string) errand.Answer {
	h.t.Helper()
	var a errand.Answer
	h.waitFor("the answer to errand "+id, func() bool {
		var ok bool
		a, ok, _ = errand.In(h.store).ReadAnswer(agent, id)
		return ok
	})
	return a
}

// TestTheDesksErrandsReachTheHubThroughTheMaster: the agents of two hosts
// take locks, set the shared state and change the team's board through
// their own host's master, with no credentials of their own; each host sees
// what the other did.
func TestTheDesksErrandsReachTheHubThroughTheMaster(t *testing.T) {
	srv, laptop, gpu := joinedHosts(t, []string{"developer_agent", "master_agent"}, []string{"tester_agent", "reviewer_agent"})
	dev, tester := laptop.deskOf("developer_agent"), gpu.deskOf("tester_agent")

	if err := dev.Lock("db migrations", "adding a column"); err != nil {
		t.Fatal(err)
	}
	err := tester.Lock("db migrations", "me too")
	if !errors.Is(err, bulletin.ErrHeld) || !strings.Contains(err.Error(), "developer_agent on host laptop") {
		t.Fatalf("the lock on the other host: %v; want it refused, naming its holder", err)
	}
	if _, err := dev.Unlock("db migrations", false); err != nil {
		t.Fatal(err)
	}
	if err := tester.Lock("db migrations", "now mine"); err != nil {
		t.Errorf("the lock once released: %v", err)
	}

	// Shared state is the hub's: the other host's bulletin shows it within
	// a beat.
	if err := dev.SetState("release version", json.RawMessage(`"2.1"`)); err != nil {
		t.Fatal(err)
	}
	gpu.waitFor("gpu to see the value", func() bool {
		v, err := tester.State("release version")
		return err == nil && string(v) == `"2.1"`
	})

	// The board is the team's: an overseer of laptop sets the status, the
	// person at gpu adds a warning, and each bulletin shows both.
	if _, err := laptop.deskOf("master_agent").ChangeBulletin(desk.BulletinChange{Status: "blocked", Phase: "release"}); err != nil {
		t.Fatal(err)
	}
	if _, err := gpu.deskOf(mailbox.Operator).ChangeBulletin(desk.BulletinChange{Warn: "main is frozen"}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []*host{gpu, laptop} {
		h.waitFor(h.name+"'s bulletin to show the board", func() bool {
			b, err := bulletin.Of(workspace.New(h.root)).Read()
			return err == nil && b.SystemStatus == "blocked" && b.CurrentPhase == "release" && len(b.Warnings) == 1
		})
	}

	// With the hub away nothing is taken, nor set, and the command says so
	// at once: the master's link is down.
	srv.Close()
	laptop.waitFor("laptop's link to drop", func() bool {
		return errors.Is(dev.SetState("release version", json.RawMessage(`"3"`)), desk.ErrHubAway)
	})
	start := time.Now()
	if err := dev.Lock("release notes", ""); !errors.Is(err, desk.ErrHubAway) {
		t.Errorf("a lock with the hub away: %v; want it refused", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the refusal took %s: a command waits no longer than the hub's silence", took)
	}
	if b, _ := bulletin.Of(workspace.New(laptop.root)).Read(); len(b.SharedResources) != 0 {
		t.Errorf("a lock refused on the hub was taken here: %v", b.SharedResources)
	}
}

// TestAnErrandTheRulesDoNotGiveIsRefused: an agent that writes errands by
// hand into its outbox, or into another's, gets no more than its rights:
// the master checks them, not the command.
func TestAnErrandTheRulesDoNotGiveIsRefused(t *testing.T) {
	srv, laptop, gpu := joinedHosts(t, []string{"developer_agent", "master_agent"}, []string{"tester_agent"})
	if err := gpu.deskOf("tester_agent").Lock("main", "merging"); err != nil {
		t.Fatal(err)
	}
	if err := laptop.deskOf("master_agent").Lock("staging", "deploying"); err != nil {
		t.Fatal(err)
	}
	look, err := hub.Dial(context.Background(), srv.URL("laptop"), hub.JoinConfig{Host: "laptop"})
	if err != nil {
		t.Fatal(err)
	}
	defer look.Close()

	for _, c := range []struct {
		name   string
		outbox string
		errand string
		want   errand.Refusal
		says   string
	}{
		{"the board, by one who is no overseer", "developer_agent",
			`{"kind":"change-board","status":"blocked","warn":"all hands"}`, errand.RefusedRight, "developer_agent may not change"},
		{"a force, by one who is not the operator", "developer_agent",
			`{"kind":"force-unlock","resource":"main"}`, errand.RefusedRight, "only the operator may force a lock"},
		{"a force, in the operator's name", "developer_agent",
			`{"from":"operator","kind":"force-unlock","resource":"main"}`, errand.RefusedInvalid, `"from" is "operator", but the errand was left in the outbox of developer_agent`},
		{"an errand left in the overseer's outbox, in one's own name", "master_agent",
			`{"from":"developer_agent","kind":"change-board","status":"blocked"}`, errand.RefusedInvalid, "left in the outbox of master_agent"},
		{"another's lock released", "developer_agent",
			`{"kind":"unlock","resource":"staging"}`, errand.RefusedHeld, "only its holder may release it"},
		{"a status the bulletin does not have", "master_agent",
			`{"kind":"change-board","status":"on fire"}`, errand.RefusedInvalid, `"on fire"`},
		{"a value over the bulletin's bound", "developer_agent",
			`{"kind":"set-state","key":"k","value":"` + strings.Repeat("x", bulletin.MaxStateValue) + `"}`, errand.RefusedInvalid, "over the bound"},
	} {
		path := laptop.drop(c.outbox, c.name+".errand", c.errand)
		a := laptop.answer(c.outbox, mailbox.ErrandID(path))
		if a.Refused != c.want || !strings.Contains(a.Reason, c.says) {
			t.Errorf("%s: answered %q: %s; want %q saying %q", c.name, a.Refused, a.Reason, c.want, c.says)
		}
		laptop.waitFor("the errand to be removed", func() bool { return !exists(path) })
	}
	if _, _, err := look.Get(context.Background(), bulletin.BoardKey); !errors.Is(err, hub.ErrNotFound) {
		t.Errorf("the team's board after refused changes: %v; want none set", err)
	}
	for resource, owner := range map[string]string{"main": "tester_agent", "staging": "master_agent"} {
		if l, ok, err := look.ReadLock(context.Background(), hub.ResourceLock(resource)); err != nil || !ok || l.Owner != owner {
			t.Errorf("%s after refused releases: %+v, %v, %v; want %s's still", resource, l, ok, err, owner)
		}
	}
	// Through the desk, the operator's force of a running agent's lock, of a
	// host that is up, is refused by the master too.
	if _, err := laptop.deskOf(mailbox.Operator).Unlock("main", true); !errors.Is(err, desk.ErrNoRight) || !strings.Contains(err.Error(), "which is up") {
		t.Errorf("the operator forcing a live host's lock: %v; want it refused", err)
	}
}

// TestABadErrandLeavesTheMasterWhole: a garbled, a half-written and a huge
// errand are each refused with the reason, and the master routes on.
func TestABadErrandLeavesTheMasterWhole(t *testing.T) {
	_, laptop, gpu := joinedHosts(t, []string{"developer_agent"}, []string{"tester_agent"})
	huge := laptop.drop("developer_agent", "huge.errand", `{"kind":"set-state","key":"k","value":"`+strings.Repeat("x", 10<<20)+`"}`)
	garbled := laptop.drop("developer_agent", "garbled.errand", `{"kind":"lock","resource":`)
	link := filepath.Join(laptop.store.OutboxDir("developer_agent"), "link.errand")
	if err := os.Symlink(filepath.Join(laptop.root, "communication_rules.yaml"), link); err != nil {
		t.Fatal(err)
	}
	for path, says := range map[string]string{huge: "over the limit", garbled: "not a JSON object", link: "symbolic link"} {
		a := laptop.answer("developer_agent", mailbox.ErrandID(path))
		if a.Refused != errand.RefusedInvalid || !strings.Contains(a.Reason, says) {
			t.Errorf("%s: answered %q: %s; want it refused, saying %q", filepath.Base(path), a.Refused, a.Reason, says)
		}
	}
	laptop.waitFor("the bad errands to be removed", func() bool { return !exists(huge) && !exists(garbled) && !exists(link) })
	if _, err := os.Stat(filepath.Join(laptop.root, "communication_rules.yaml")); err != nil {
		t.Errorf("the file a link pointed to: %v", err)
	}
	post(t, laptop.harness, "developer_agent", &mailbox.Message{To: []string{"tester_agent"}, Title: "still routing", Type: mailbox.TypeNotification})
	gpu.waitInbox("tester_agent", 1)
	if a := laptop.errand("developer_agent", &errand.Errand{Kind: errand.Lock, Resource: "after"}); a.Refused != "" {
		t.Errorf("an errand after the bad ones: %+v", a)
	}
}

// TestAnErrandWaitsForNoHub: a master whose hub is out of reach answers an
// errand at once, and one that joins no hub says so; a command then takes
// its lock on this host alone.
func TestAnErrandWaitsForNoHub(t *testing.T) {
	srv := startHub(t, t.TempDir())
	h := newHost(t, srv, "laptop", "developer_agent")
	srv.Close()
	stop := h.start(h.opts)
	if host, ok, err := workspace.New(h.root).ReadHubHost(); err != nil || !ok || host.Host != "laptop" {
		t.Fatalf("the host's name for the commands: %+v, %v, %v", host, ok, err)
	}
	if a := h.errand("developer_agent", &errand.Errand{Kind: errand.Lock, Resource: "main"}); a.Refused != errand.RefusedHubAway {
		t.Errorf("an errand before the master joined: %+v; want the hub away", a)
	}
	if err := h.deskOf("developer_agent").Lock("main", ""); !errors.Is(err, desk.ErrHubAway) {
		t.Errorf("a lock before the master joined: %v; want the hub away", err)
	}
	stop()

	// Started again without a hub: it says so, and the lock is this host's.
	h.log = &syncBuffer{}
	h.start(Options{NoFsync: true})
	if _, ok, _ := workspace.New(h.root).ReadHubHost(); ok {
		t.Error("a master without a hub left the host's name for the commands")
	}
	if err := h.deskOf("developer_agent").Lock("main", ""); err != nil {
		t.Errorf("a lock on one host: %v", err)
	}
	id, err := errand.In(h.store).Post("developer_agent", &errand.Errand{Kind: errand.SetState, Key: "k", Value: json.RawMessage(`1`)})
	if err != nil {
		t.Fatal(err)
	}
	if a := h.answer("developer_agent", id); a.Refused != errand.RefusedNoHub {
		t.Errorf("an errand to a master without a hub: %+v", a)
	}
}
