package desk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/bulletin"
	"switchboard/conversation"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/rules"
	"switchboard/rules/approvals"
	"switchboard/workspace"
)

// A world is the default team as a test finds it: the master (overseer and
// interrupter), the developer, the reviewer and the tester, and the
// operator; developer_agent-1 and tester_agent-1 spawned by the developer
// and the tester; developer_agent-2 closed (its mailbox stays, and its
// state says it exited). Mail waits in the tester's inbox and one message
// in the developer's; the developer has answered ahead for its helper; the
// developer and developer_agent-2 each hold a lock; the shared state holds
// one key. Nothing runs: no master, no tmux.
type world struct {
	ws    *workspace.Workspace
	rules *rules.Rules
	// mail are the ids of the messages delivered, by what they are.
	mail map[string]string
	// approval is the id of the developer's answer ahead.
	approval string
	// start is every file of the workspace once the world is made.
	start map[string]string
}

// The mail of a world, by what it is.
const (
	fromDeveloper   = "the developer's message to the tester"
	requestOptions  = "the developer's request with options, to the tester"
	fromSwitchboard = "switchboard's notice to the tester"
	fromReviewer    = "the reviewer's message to the tester, from rules since changed"
	answeredAlready = "the developer's message the tester answered already"
	forTheDeveloper = "the master's message to the developer"
)

// The helpers of a world, and its locks.
const (
	helper        = "developer_agent-1" // the developer's
	testersHelper = "tester_agent-1"
	closedHelper  = "developer_agent-2" // the developer's, closed
	developerLock = "staging-db"
	closedLock    = "old-fixtures" // closedHelper's
)

func newWorld(t *testing.T) *world {
	t.Helper()
	ws, _ := defaultTeam(t)
	if err := ws.MakeMailboxes(); err != nil {
		t.Fatal(err)
	}
	err := ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
		all[helper] = workspace.Spawned{Profile: "developer_agent", Parent: "developer_agent", Started: time.Now().UTC()}
		all[testersHelper] = workspace.Spawned{Profile: "tester_agent", Parent: "tester_agent", Started: time.Now().UTC()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rules.LoadTeam(ws)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{ws: ws, rules: r, mail: make(map[string]string)}
	if err := ws.Store.Ensure(closedHelper); err != nil {
		t.Fatal(err)
	}
	exited := conversation.State{State: conversation.Exited, Since: time.Now().UTC(), Source: conversation.SourcePane, Detail: "closed"}
	if err := conversation.Of(ws.Store).SetState(closedHelper, exited); err != nil {
		t.Fatal(err)
	}

	w.deliver(t, fromDeveloper, "developer_agent", "tester_agent", &mailbox.Message{Title: "Please test the login page", Type: mailbox.TypeRequest})
	ask := &mailbox.Message{Title: "May I merge the login page?", Type: mailbox.TypeRequest, RequiresResponse: true}
	ask.SetOptions([]string{"yes", "no"})
	w.deliver(t, requestOptions, "developer_agent", "tester_agent", ask)
	w.deliver(t, fromSwitchboard, mailbox.System, "tester_agent", &mailbox.Message{Title: "BLOCKED: your message to reviewer_agent"})
	w.deliver(t, fromReviewer, "reviewer_agent", "tester_agent", &mailbox.Message{Title: "How do you test the login?", Type: mailbox.TypeQuery})
	w.deliver(t, answeredAlready, "developer_agent", "tester_agent", &mailbox.Message{Title: "Did the build pass?", Type: mailbox.TypeQuery})
	w.deliver(t, forTheDeveloper, "master_agent", "developer_agent", &mailbox.Message{Title: "Plan for today", Type: mailbox.TypeInstruction})

	// The tester's answer, routed already: in its sent/ folder.
	orig := w.letter(t, "tester_agent", answeredAlready)
	earlier := orig.Reply("It passed.", "")
	earlier.From = "tester_agent"
	earlier.Normalize(time.Now())
	data, err := earlier.Encode()
	if err != nil {
		t.Fatal(err)
	}
	name := mailbox.FileName(earlier.Timestamp, earlier.Priority, earlier.ID)
	if err := os.WriteFile(filepath.Join(ws.Store.SentDir("tester_agent"), name), data, 0o600); err != nil {
		t.Fatal(err)
	}

	a, err := approvals.Of(ws).Remember(approvals.Approval{Agent: helper, Tool: "Bash", Rule: "go test *", Decision: approvals.Always, By: "developer_agent", At: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	w.approval = a.ID
	for resource, holder := range map[string]string{developerLock: "developer_agent", closedLock: closedHelper} {
		if err := bulletin.Of(ws).Acquire(resource, holder, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := bulletin.Of(ws).SetState("build", json.RawMessage(`"green"`)); err != nil {
		t.Fatal(err)
	}
	w.start = w.files(t)
	return w
}

// deliver puts msg into to's inbox, from from, as the master would.
func (w *world) deliver(t *testing.T, what, from, to string, msg *mailbox.Message) {
	t.Helper()
	msg.From, msg.To = from, []string{to}
	msg.Normalize(time.Now())
	msg.DeliveredAt = time.Now().UTC()
	if _, err := w.ws.Store.Deliver(to, msg); err != nil {
		t.Fatal(err)
	}
	w.mail[what] = msg.ID
}

// letter loads the message of agent's inbox that what names.
func (w *world) letter(t *testing.T, agent, what string) *mailbox.Message {
	t.Helper()
	e, err := w.ws.Store.Find(agent, w.mail[what])
	if err != nil {
		t.Fatal(err)
	}
	m, err := mailbox.Load(e.Path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// desk is agent's desk under the world's rules; with broken, the desk of
// a rules file that does not load, serving the rules the master last
// loaded.
func (w *world) desk(agent string, broken bool) *Desk {
	if broken {
		return WithLoadedRules(w.ws, w.rules, agent, errors.New("communication_rules.yaml:3: did not find expected key"))
	}
	return New(w.ws, w.rules, agent)
}

// files reads every file of the workspace but the locks' own, by path.
func (w *world) files(t *testing.T) map[string]string {
	t.Helper()
	files := make(map[string]string)
	err := filepath.WalkDir(w.ws.Root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() || strings.HasSuffix(path, ".lock") {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(w.ws.Root, path)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// changes are the files made, removed or changed since the world was
// made.
func (w *world) changes(t *testing.T) []string {
	t.Helper()
	now := w.files(t)
	var out []string
	for path, data := range now {
		if was, ok := w.start[path]; !ok {
			out = append(out, "made "+path)
		} else if was != data {
			out = append(out, "changed "+path)
		}
	}
	for path := range w.start {
		if _, ok := now[path]; !ok {
			out = append(out, "removed "+path)
		}
	}
	slices.Sort(out)
	return out
}

// outbox loads what waits in agent's outbox.
func (w *world) outbox(t *testing.T, agent string) []*mailbox.Message {
	t.Helper()
	paths, err := w.ws.Store.Pending(agent)
	if err != nil {
		t.Fatal(err)
	}
	var out []*mailbox.Message
	for _, p := range paths {
		m, err := mailbox.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// unread reports whether the message what names is unread in agent's inbox.
func (w *world) unread(t *testing.T, agent, what string) bool {
	t.Helper()
	e, err := w.ws.Store.Find(agent, w.mail[what])
	if err != nil {
		t.Fatal(err)
	}
	return !e.Read
}

func (w *world) spawned(t *testing.T) map[string]workspace.Spawned {
	t.Helper()
	spawned, err := w.ws.Spawned()
	if err != nil {
		t.Fatal(err)
	}
	return spawned
}

func (w *world) bulletin(t *testing.T) *bulletin.Bulletin {
	t.Helper()
	b, err := bulletin.Of(w.ws).Read()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (w *world) approvals(t *testing.T) []approvals.Approval {
	t.Helper()
	list, err := approvals.Of(w.ws).List()
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// An outcome is what the desk is to decide: said names it in a failure.
type outcome struct {
	said  string
	match func(error) bool
}

func allowed() outcome {
	return outcome{"allowed", func(err error) bool { return err == nil }}
}

// allowedUntil is a call the desk lets through, which then stops at stop
// for want of a running team (no tmux) or of an answer (a context ended).
func allowedUntil(stop error) outcome {
	return outcome{fmt.Sprintf("allowed, then stopped by %q", stop), func(err error) bool { return errors.Is(err, stop) }}
}

func byRules(target error) outcome {
	return outcome{fmt.Sprintf("refused by the rules with %q", target), func(err error) bool { return errors.Is(err, target) }}
}

func byRulesAs[T error]() outcome {
	var zero T
	return outcome{fmt.Sprintf("refused by the rules with a %T", zero), func(err error) bool { return as[T](err) }}
}

func badInput(target error) outcome {
	return outcome{fmt.Sprintf("refused as bad input with %q", target), func(err error) bool { return errors.Is(err, target) }}
}

func badInputAs[T error]() outcome {
	var zero T
	return outcome{fmt.Sprintf("refused as bad input with a %T", zero), func(err error) bool { return as[T](err) }}
}

// badInputSaying is a refusal the desk wraps no sentinel in: only its
// words tell it.
func badInputSaying(words string) outcome {
	return outcome{fmt.Sprintf("refused as bad input, saying %q", words), func(err error) bool { return err != nil && strings.Contains(err.Error(), words) }}
}

func as[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

// What lands on disk.

// nothingChanged is a call that leaves every file of the workspace as it
// was.
var nothingChanged = nothingChangedBut()

// nothingChangedBut is nothingChanged for every file but those whose path
// starts with one of cache.
func nothingChangedBut(cache ...string) func(*testing.T, *world) {
	return func(t *testing.T, w *world) {
		t.Helper()
		changes := slices.DeleteFunc(w.changes(t), func(c string) bool {
			_, path, _ := strings.Cut(c, " ")
			return slices.ContainsFunc(cache, func(p string) bool { return strings.HasPrefix(path, p) })
		})
		if len(changes) > 0 {
			t.Errorf("the workspace changed: %q; want it as it was", changes)
		}
	}
}

// posts says what agent's outbox is to hold: one message to to of type
// kind.
func posts(agent, to, kind string) func(*testing.T, *world) {
	return func(t *testing.T, w *world) {
		t.Helper()
		out := w.outbox(t, agent)
		if len(out) != 1 || !slices.Equal(out[0].To, []string{to}) || out[0].Type != kind {
			t.Errorf("the outbox of %s holds %s; want one %s to %s", agent, describe(out), kind, to)
		}
	}
}

func describe(msgs []*mailbox.Message) string {
	if len(msgs) == 0 {
		return "nothing"
	}
	var s []string
	for _, m := range msgs {
		s = append(s, fmt.Sprintf("%s to %v %q", m.Type, m.To, m.Title))
	}
	return strings.Join(s, ", ")
}

// both runs each check.
func both(checks ...func(*testing.T, *world)) func(*testing.T, *world) {
	return func(t *testing.T, w *world) {
		t.Helper()
		for _, c := range checks {
			c(t, w)
		}
	}
}

func stillUnread(agent, what string) func(*testing.T, *world) {
	return func(t *testing.T, w *world) {
		t.Helper()
		if !w.unread(t, agent, what) {
			t.Errorf("%s is read; want it unread still", what)
		}
	}
}

func nowRead(agent, what string) func(*testing.T, *world) {
	return func(t *testing.T, w *world) {
		t.Helper()
		if w.unread(t, agent, what) {
			t.Errorf("%s is unread; want it read", what)
		}
	}
}

func stillSpawned(name string) func(*testing.T, *world) {
	return func(t *testing.T, w *world) {
		t.Helper()
		if s, ok := w.spawned(t)[name]; !ok || s.Cancelled != nil {
			t.Errorf("%s is %+v in the registry; want it there, at work", name, s)
		}
	}
}

func closed(name string) func(*testing.T, *world) {
	return func(t *testing.T, w *world) {
		t.Helper()
		if _, ok := w.spawned(t)[name]; ok {
			t.Errorf("%s is still in the registry", name)
		}
		if !conversation.Of(w.ws.Store).HasExited(name) {
			t.Errorf("the state of %s does not say it exited", name)
		}
	}
}

func cancelledBy(name, by string) func(*testing.T, *world) {
	return func(t *testing.T, w *world) {
		t.Helper()
		if c := w.spawned(t)[name].Cancelled; c == nil || c.By != by {
			t.Errorf("%s is marked cancelled by %+v; want by %s", name, c, by)
		}
	}
}

func approvalsGivenBy(by ...string) func(*testing.T, *world) {
	return func(t *testing.T, w *world) {
		t.Helper()
		var got []string
		for _, a := range w.approvals(t) {
			got = append(got, a.By)
		}
		if !slices.Equal(got, by) {
			t.Errorf("the approvals are given by %q; want %q", got, by)
		}
	}
}

func lockHeldBy(resource, holder string) func(*testing.T, *world) {
	return func(t *testing.T, w *world) {
		t.Helper()
		l, ok := w.bulletin(t).SharedResources[resource]
		switch {
		case holder == "" && ok:
			t.Errorf("%s is held by %s; want it free", resource, l.Holder)
		case holder != "" && l.Holder != holder:
			t.Errorf("%s is held by %q; want %s", resource, l.Holder, holder)
		}
	}
}

// stopped is a context ended already: a call that would wait returns as
// soon as it has done what comes before the wait.
func stopped() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestEachVerbOfTheDeskDecidesAsTheTeamsRulesSay: for every verb of the
// desk that checks a right or refuses bad input, whether it lets the agent
// do it, refuses it by the rules, or refuses what was asked, and what
// lands on disk then: a refusal changes nothing (but for a message the
// rules block, which goes out for the log), a call allowed does what it
// says.
func TestEachVerbOfTheDeskDecidesAsTheTeamsRulesSay(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		agent string
		// broken: the rules file does not load; the desk has the rules the
		// master last loaded.
		broken bool
		call   func(d *Desk, w *world) error
		want   outcome
		after  func(*testing.T, *world)
	}{
		// send
		{
			name: "a tester may write to the developer", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Send(&mailbox.Message{To: []string{"developer_agent"}, Title: "The login page fails"})
				return err
			},
			want: allowed(), after: posts("tester_agent", "developer_agent", mailbox.TypeNotification),
		},
		{
			name: "a tester may not write to the reviewer, and the attempt goes out for the log", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Send(&mailbox.Message{To: []string{"reviewer_agent"}, Title: "Found a bug"})
				return err
			},
			want: byRulesAs[*BlockedError](), after: posts("tester_agent", "reviewer_agent", mailbox.TypeNotification),
		},
		{
			name: "a tester's helper may not write to the reviewer either", agent: testersHelper,
			call: func(d *Desk, w *world) error {
				_, err := d.Send(&mailbox.Message{To: []string{"reviewer_agent"}, Title: "Found a bug"})
				return err
			},
			want: byRulesAs[*BlockedError](), after: posts(testersHelper, "reviewer_agent", mailbox.TypeNotification),
		},
		{
			name: "a helper may write to the agent that spawned it", agent: helper,
			call: func(d *Desk, w *world) error {
				_, err := d.Send(&mailbox.Message{To: []string{"developer_agent"}, Title: "Done"})
				return err
			},
			want: allowed(), after: posts(helper, "developer_agent", mailbox.TypeNotification),
		},
		{
			name: "a tester's message to everyone goes out, though the reviewer is kept from it", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Send(&mailbox.Message{To: []string{mailbox.Broadcast}, Title: "All tests pass"})
				return err
			},
			want: allowed(), after: posts("tester_agent", mailbox.Broadcast, mailbox.TypeNotification),
		},
		{
			name: "a message to an agent the team does not have posts nothing", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Send(&mailbox.Message{To: []string{"developer"}, Title: "x"})
				return err
			},
			want: badInputAs[*UnknownAgentError](), after: nothingChanged,
		},
		{
			name: "a message without a title posts nothing", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Send(&mailbox.Message{To: []string{"developer_agent"}})
				return err
			},
			want: badInput(mailbox.ErrInvalid), after: nothingChanged,
		},
		{
			name: "with the rules file broken, a tester may not send", agent: "tester_agent", broken: true,
			call: func(d *Desk, w *world) error {
				_, err := d.Send(&mailbox.Message{To: []string{"developer_agent"}, Title: "x"})
				return err
			},
			want: byRules(ErrNoRules), after: nothingChanged,
		},

		// reply
		{
			name: "the tester answers the developer, and the message is read", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Reply(ReplyRequest{ID: w.mail[fromDeveloper], Content: "On it"})
				return err
			},
			want: allowed(), after: both(posts("tester_agent", "developer_agent", mailbox.TypeResponse), nowRead("tester_agent", fromDeveloper)),
		},
		{
			name: "a tester may not reply to a message that is not its own", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Reply(ReplyRequest{ID: w.mail[forTheDeveloper], Content: "Sounds good"})
				return err
			},
			want: badInput(mailbox.ErrNotFound), after: nothingChanged,
		},
		{
			name: "a notice from switchboard cannot be answered", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Reply(ReplyRequest{ID: w.mail[fromSwitchboard], Content: "Why?"})
				return err
			},
			want: badInput(ErrNotAnswerable), after: nothingChanged,
		},
		{
			name: "a reply that says nothing is refused", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Reply(ReplyRequest{ID: w.mail[fromDeveloper], Content: "  "})
				return err
			},
			want: badInput(ErrEmptyReply), after: nothingChanged,
		},
		{
			name: "a request with options is not answered without one", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Reply(ReplyRequest{ID: w.mail[requestOptions], Content: "Sure"})
				return err
			},
			want: badInputAs[*OptionError](), after: nothingChanged,
		},
		{
			name: "a request with options is not answered with one it does not list", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Reply(ReplyRequest{ID: w.mail[requestOptions], Option: "maybe"})
				return err
			},
			want: badInputAs[*OptionError](), after: nothingChanged,
		},
		{
			name: "a request with options is answered with one of them, in any case", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Reply(ReplyRequest{ID: w.mail[requestOptions], Option: "YES"})
				return err
			},
			want: allowed(), after: both(posts("tester_agent", "developer_agent", mailbox.TypeResponse), nowRead("tester_agent", requestOptions)),
		},
		{
			name: "a message answered already is not answered twice by mistake", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Reply(ReplyRequest{ID: w.mail[answeredAlready], Content: "It passed, I said"})
				return err
			},
			want: badInputAs[*AnsweredError](), after: nothingChanged,
		},
		{
			name: "a message answered already may be answered again on purpose", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Reply(ReplyRequest{ID: w.mail[answeredAlready], Content: "It failed after all", Again: true})
				return err
			},
			want: allowed(), after: posts("tester_agent", "developer_agent", mailbox.TypeResponse),
		},
		{
			name: "a reply to the reviewer is blocked like any message to it, and the message stays unread", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Reply(ReplyRequest{ID: w.mail[fromReviewer], Content: "By hand"})
				return err
			},
			want: byRulesAs[*BlockedError](), after: both(posts("tester_agent", "reviewer_agent", mailbox.TypeResponse), stillUnread("tester_agent", fromReviewer)),
		},

		// read
		{
			name: "the tester reads a message of its inbox", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Read(w.mail[fromDeveloper], false)
				return err
			},
			want: allowed(), after: nowRead("tester_agent", fromDeveloper),
		},
		{
			name: "a peek leaves the message unread", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Read(w.mail[fromDeveloper], true)
				return err
			},
			want: allowed(), after: nothingChanged,
		},
		{
			name: "a tester may not read the developer's mail", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Read(w.mail[forTheDeveloper], false)
				return err
			},
			want: badInput(mailbox.ErrNotFound), after: nothingChanged,
		},
		{
			name: "an id no message has reads nothing", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Read("0000", false)
				return err
			},
			want: badInput(mailbox.ErrNotFound), after: nothingChanged,
		},
		{
			name: "an inbox with nothing unread has no next message", agent: "reviewer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Read("", false)
				return err
			},
			want: badInput(ErrNoUnread), after: nothingChanged,
		},

		// ask
		{
			name: "a tester asks the developer, and the question goes out", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Ask(stopped(), AskRequest{To: "developer_agent", Title: "Which browser?", Options: []string{"firefox", "chrome"}}, nil)
				return err
			},
			want: allowedUntil(context.Canceled), after: posts("tester_agent", "developer_agent", mailbox.TypeRequest),
		},
		{
			name: "a helper asks the agent that spawned it when it names no one", agent: helper,
			call: func(d *Desk, w *world) error {
				_, err := d.Ask(stopped(), AskRequest{Title: "Which branch?"}, nil)
				return err
			},
			want: allowedUntil(context.Canceled), after: posts(helper, "developer_agent", mailbox.TypeRequest),
		},
		{
			name: "a tester may not ask the reviewer, and the attempt goes out for the log", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Ask(stopped(), AskRequest{To: "reviewer_agent", Title: "Is it ready?"}, nil)
				return err
			},
			want: byRulesAs[*BlockedError](), after: posts("tester_agent", "reviewer_agent", mailbox.TypeRequest),
		},
		{
			name: "a question without a title is not asked", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Ask(stopped(), AskRequest{To: "developer_agent"}, nil)
				return err
			},
			want: badInput(ErrNoQuestion), after: nothingChanged,
		},
		{
			name: "a tester, spawned by no one, must name whom it asks", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Ask(stopped(), AskRequest{Title: "Which browser?"}, nil)
				return err
			},
			want: badInput(ErrNoOneToAsk), after: nothingChanged,
		},
		{
			name: "a question to an agent the team does not have is not asked", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Ask(stopped(), AskRequest{To: "qa_agent", Title: "Which browser?"}, nil)
				return err
			},
			want: badInputAs[*UnknownAgentError](), after: nothingChanged,
		},

		// forward
		{
			name: "the tester passes the developer's request up to the person, and it stays unread till answered", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Ask(stopped(), AskRequest{Forward: w.mail[requestOptions]}, nil)
				return err
			},
			want:  allowedUntil(context.Canceled),
			after: both(posts("tester_agent", mailbox.Operator, mailbox.TypeRequest), stillUnread("tester_agent", requestOptions)),
		},
		{
			name: "a tester may not pass up a request in the developer's inbox", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Ask(stopped(), AskRequest{Forward: w.mail[forTheDeveloper]}, nil)
				return err
			},
			want: badInput(mailbox.ErrNotFound), after: nothingChanged,
		},

		// spawn
		{
			name: "a developer may spawn a helper of its own, as far as tmux, which does not run", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Spawn(context.Background(), SpawnRequest{Profile: "developer_agent", Task: "Write the tests"})
				return err
			},
			want: allowedUntil(lifecycle.ErrNotUp), after: nothingChanged,
		},
		{
			name: "the master may spawn a helper for the developer, as far as tmux", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Spawn(context.Background(), SpawnRequest{Profile: "developer_agent", Parent: "developer_agent"})
				return err
			},
			want: allowedUntil(lifecycle.ErrNotUp), after: nothingChanged,
		},
		{
			name: "a tester may not spawn an agent of the master's profile", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Spawn(context.Background(), SpawnRequest{Profile: "master_agent"})
				return err
			},
			want: byRules(ErrPrivileged), after: nothingChanged,
		},
		{
			name: "a tester may not spawn a helper for the developer", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Spawn(context.Background(), SpawnRequest{Profile: "tester_agent", Parent: "developer_agent"})
				return err
			},
			want: byRules(ErrOtherParent), after: nothingChanged,
		},
		{
			name: "the master may not spawn a tester under the reviewer, which the tester may not answer", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Spawn(context.Background(), SpawnRequest{Profile: "tester_agent", Parent: "reviewer_agent"})
				return err
			},
			want: byRules(ErrCannotAnswer), after: nothingChanged,
		},
		{
			name: "no agent is spawned from a profile the team does not have", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Spawn(context.Background(), SpawnRequest{Profile: "designer_agent"})
				return err
			},
			want: badInput(ErrNoProfile), after: nothingChanged,
		},
		{
			name: "not even the master may spawn under a parent the team does not have", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Spawn(context.Background(), SpawnRequest{Profile: "developer_agent", Parent: "designer_agent"})
				return err
			},
			want: badInputAs[*UnknownAgentError](), after: nothingChanged,
		},
		{
			name: "with the rules file broken, a developer may not spawn", agent: "developer_agent", broken: true,
			call: func(d *Desk, w *world) error {
				_, err := d.Spawn(context.Background(), SpawnRequest{Profile: "developer_agent"})
				return err
			},
			want: byRules(ErrNoRules), after: nothingChanged,
		},

		// close
		{
			name: "a developer may close its own helper", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Close(context.Background(), helper, false)
				return err
			},
			want: allowed(), after: both(closed(helper), func(t *testing.T, w *world) {
				if out := w.outbox(t, "developer_agent"); len(out) != 0 {
					t.Errorf("the developer told itself: %s", describe(out))
				}
			}),
		},
		{
			name: "the master may close the developer's helper, and the developer is told", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Close(context.Background(), helper, false)
				return err
			},
			want: allowed(), after: both(closed(helper), posts("master_agent", "developer_agent", mailbox.TypeNotification)),
		},
		{
			name: "a tester may not close the developer's helper", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Close(context.Background(), helper, false)
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "an agent of the rules is not closed alone, not even by the master", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Close(context.Background(), "reviewer_agent", false)
				return err
			},
			want: badInput(ErrNotSpawned), after: nothingChanged,
		},
		{
			name: "a developer closing its helper closed before, in no git repository, is told it has no worktree left", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Close(context.Background(), closedHelper, false)
				return err
			},
			want: badInput(ErrClosed), after: nothingChanged,
		},
		{
			name: "the master closing a helper closed before, in no git repository, is told it has no worktree left", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Close(context.Background(), closedHelper, false)
				return err
			},
			want: badInput(ErrClosed), after: nothingChanged,
		},
		{
			name: "an agent the team does not have cannot be closed", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Close(context.Background(), "developer_agent-9", false)
				return err
			},
			want: badInputAs[*UnknownAgentError](), after: nothingChanged,
		},
		{
			name: "with the rules file broken, a developer may still close its own helper", agent: "developer_agent", broken: true,
			call: func(d *Desk, w *world) error {
				_, err := d.Close(context.Background(), helper, false)
				return err
			},
			want: allowed(), after: closed(helper),
		},
		{
			name: "a tester may not ask what closing the developer's helper would throw away", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.WouldDiscard(context.Background(), helper)
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "a developer may ask what closing its own helper would throw away", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.WouldDiscard(context.Background(), helper)
				return err
			},
			want: allowed(), after: nothingChanged,
		},

		// cancel
		{
			name: "a developer may cancel its own helper", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Cancel(helper, "wrong branch")
				return err
			},
			want: allowed(), after: both(cancelledBy(helper, "developer_agent"), posts("developer_agent", helper, mailbox.TypeInterrupt)),
		},
		{
			name: "the master may cancel an agent of the rules", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Cancel("reviewer_agent", "")
				return err
			},
			want: allowed(), after: posts("master_agent", "reviewer_agent", mailbox.TypeInterrupt),
		},
		{
			name: "a tester may not cancel the developer's helper", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Cancel(helper, "")
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "a tester may not cancel the developer", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Cancel("developer_agent", "")
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "an agent the team does not have cannot be cancelled", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Cancel("developer_agent-9", "")
				return err
			},
			want: badInputAs[*UnknownAgentError](), after: nothingChanged,
		},
		{
			name: "with the rules file broken, a developer may still cancel its own helper", agent: "developer_agent", broken: true,
			call: func(d *Desk, w *world) error {
				_, err := d.Cancel(helper, "")
				return err
			},
			want: allowed(), after: cancelledBy(helper, "developer_agent"),
		},

		// interrupt
		{
			name: "the master may interrupt the tester", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Interrupt("tester_agent", "stop the load test")
				return err
			},
			want: allowed(), after: posts("master_agent", "tester_agent", mailbox.TypeInterrupt),
		},
		{
			name: "a developer may interrupt its own helper", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Interrupt(helper, "wrong file")
				return err
			},
			want: allowed(), after: posts("developer_agent", helper, mailbox.TypeInterrupt),
		},
		{
			name: "a tester may not interrupt the developer", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Interrupt("developer_agent", "stop")
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "an interrupt must say why", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Interrupt("tester_agent", " ")
				return err
			},
			want: badInput(ErrNoReason), after: nothingChanged,
		},
		{
			name: "an agent the team does not have cannot be interrupted", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Interrupt("testr_agent", "stop")
				return err
			},
			want: badInputAs[*UnknownAgentError](), after: nothingChanged,
		},
		{
			name: "with the rules file broken, even the master may not interrupt", agent: "master_agent", broken: true,
			call: func(d *Desk, w *world) error {
				_, err := d.Interrupt("tester_agent", "stop")
				return err
			},
			want: byRules(ErrNoRules), after: nothingChanged,
		},

		// wait
		{
			name: "a developer may wait for its own helper", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Wait(stopped(), helper, 0, nil)
				return err
			},
			want: allowedUntil(context.Canceled), after: nothingChanged,
		},
		{
			name: "a tester may not wait for the developer's helper", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Wait(stopped(), helper, 0, nil)
				return err
			},
			want: byRules(ErrNotYourHelper), after: nothingChanged,
		},
		{
			name: "no one waits for an agent of the rules, which no one spawned", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Wait(stopped(), "reviewer_agent", 0, nil)
				return err
			},
			want: badInput(ErrNotSpawned), after: nothingChanged,
		},
		{
			name: "no one waits for a helper closed before", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Wait(stopped(), closedHelper, 0, nil)
				return err
			},
			want: badInput(ErrClosed), after: nothingChanged,
		},

		// approvals
		{
			name: "a developer may answer ahead for its own helper", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.SetApproval(helper, approvals.Never, "Bash", "git push *")
				return err
			},
			want: allowed(), after: approvalsGivenBy("developer_agent", "developer_agent"),
		},
		{
			name: "the master may answer ahead for any agent", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.SetApproval("tester_agent", approvals.Always, "Bash", "go test *")
				return err
			},
			want: allowed(), after: approvalsGivenBy("developer_agent", "master_agent"),
		},
		{
			name: "an agent may not answer ahead for itself", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.SetApproval("developer_agent", approvals.Always, "Bash", "*")
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "a tester may not answer ahead for the developer's helper", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.SetApproval(helper, approvals.Always, "Bash", "*")
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "an answer ahead is always or never", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.SetApproval("tester_agent", "sometimes", "Bash", "*")
				return err
			},
			want: badInput(ErrDecision), after: nothingChanged,
		},
		{
			name: "an answer ahead names the calls it covers", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.SetApproval("tester_agent", approvals.Always, "Bash", " ")
				return err
			},
			want: badInput(ErrNoRule), after: nothingChanged,
		},
		{
			name: "no one answers ahead for an agent the team does not have", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.SetApproval("qa_agent", approvals.Always, "Bash", "*")
				return err
			},
			want: badInputAs[*UnknownAgentError](), after: nothingChanged,
		},
		{
			name: "the developer may take back the answer it gave", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.RevokeApproval(w.approval)
				return err
			},
			want: allowed(), after: approvalsGivenBy(),
		},
		{
			name: "the master may take back the developer's answer", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.RevokeApproval(w.approval)
				return err
			},
			want: allowed(), after: approvalsGivenBy(),
		},
		{
			name: "a tester may not take back the developer's answer", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.RevokeApproval(w.approval)
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "an answer is not taken back by too short an id", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.RevokeApproval(w.approval[:3])
				return err
			},
			want: badInput(ErrShortID), after: nothingChanged,
		},
		{
			name: "an answer no one gave cannot be taken back", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.RevokeApproval("ffffffff")
				return err
			},
			want: badInput(approvals.ErrNotFound), after: nothingChanged,
		},

		// bulletin
		{
			name: "the master may set the team's status", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.ChangeBulletin(BulletinChange{Status: "paused", Phase: "release"})
				return err
			},
			want: allowed(), after: func(t *testing.T, w *world) {
				if b := w.bulletin(t); b.SystemStatus != "paused" || b.CurrentPhase != "release" {
					t.Errorf("the bulletin says %q in phase %q; want paused in release", b.SystemStatus, b.CurrentPhase)
				}
			},
		},
		{
			name: "the operator may warn the team", agent: mailbox.Operator,
			call: func(d *Desk, w *world) error {
				_, err := d.ChangeBulletin(BulletinChange{Warn: "the disk is nearly full"})
				return err
			},
			want: allowed(), after: func(t *testing.T, w *world) {
				if ws := w.bulletin(t).Warnings; len(ws) != 1 || ws[0].Text != "the disk is nearly full" {
					t.Errorf("the bulletin warns %+v; want the operator's warning", ws)
				}
			},
		},
		{
			name: "a tester may not set the team's phase", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.ChangeBulletin(BulletinChange{Phase: "testing"})
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "the team's status is one the bulletin knows", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.ChangeBulletin(BulletinChange{Status: "on fire"})
				return err
			},
			want: badInput(bulletin.ErrStatus), after: nothingChanged,
		},
		{
			name: "the team's phase is one line", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.ChangeBulletin(BulletinChange{Phase: "release\nthen rest"})
				return err
			},
			want: badInputSaying("is one line"), after: nothingChanged,
		},

		// shared state
		{
			name: "any agent may set a key of the shared state", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				return d.SetState("coverage", json.RawMessage(`81.5`))
			},
			want: allowed(), after: func(t *testing.T, w *world) {
				if state, err := bulletin.Of(w.ws).ReadState(); err != nil || string(state["coverage"]) != `81.5` {
					t.Errorf("the shared state holds %v, %v; want coverage 81.5", state, err)
				}
			},
		},
		{
			name: "a key of the shared state has a name", agent: "tester_agent",
			call: func(d *Desk, w *world) error { return d.SetState(" ", json.RawMessage(`1`)) },
			want: badInput(ErrBlank), after: nothingChanged,
		},
		{
			name: "a value of the shared state is JSON", agent: "tester_agent",
			call: func(d *Desk, w *world) error { return d.SetState("coverage", json.RawMessage(`81,5`)) },
			want: badInputSaying("is not JSON"), after: nothingChanged,
		},
		{
			name: "any agent may read a key of the shared state", agent: "reviewer_agent",
			call: func(d *Desk, w *world) error {
				v, err := d.State("build")
				if err == nil && string(v) != `"green"` {
					return fmt.Errorf("the build is %s; want green", v)
				}
				return err
			},
			want: allowed(), after: nothingChanged,
		},
		{
			name: "a key no one set has no value", agent: "reviewer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.State("deploy")
				return err
			},
			want: badInput(ErrNoSuchKey), after: nothingChanged,
		},

		// locks
		{
			name: "an agent may take a lock no one holds", agent: "tester_agent",
			call: func(d *Desk, w *world) error { return d.Lock("browser-farm", "load test") },
			want: allowed(), after: lockHeldBy("browser-farm", "tester_agent"),
		},
		{
			name: "an agent may not take a lock another holds", agent: "tester_agent",
			call: func(d *Desk, w *world) error { return d.Lock(developerLock, "") },
			want: byRules(bulletin.ErrHeld), after: nothingChanged,
		},
		{
			name: "a lock has a name", agent: "tester_agent",
			call: func(d *Desk, w *world) error { return d.Lock("  ", "") },
			want: badInput(ErrBlank), after: nothingChanged,
		},
		{
			name: "a lock's reason is one line", agent: "tester_agent",
			call: func(d *Desk, w *world) error { return d.Lock("browser-farm", "load test\nall night") },
			want: badInput(ErrBadReason), after: nothingChanged,
		},
		{
			name: "the holder may release its lock", agent: "developer_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Unlock(developerLock, false)
				return err
			},
			want: allowed(), after: lockHeldBy(developerLock, ""),
		},
		{
			name: "an agent may not release a lock another holds", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Unlock(developerLock, false)
				return err
			},
			want: byRules(bulletin.ErrNotHolder), after: nothingChanged,
		},
		{
			name: "only the operator may force a lock, not even the master", agent: "master_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Unlock(closedLock, true)
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "the operator may not force the lock of an agent still running", agent: mailbox.Operator,
			call: func(d *Desk, w *world) error {
				_, err := d.Unlock(developerLock, true)
				return err
			},
			want: byRules(ErrNoRight), after: nothingChanged,
		},
		{
			name: "the operator may force the lock of an agent that exited", agent: mailbox.Operator,
			call: func(d *Desk, w *world) error {
				_, err := d.Unlock(closedLock, true)
				return err
			},
			want: allowed(), after: lockHeldBy(closedLock, ""),
		},
		{
			name: "a lock no one holds cannot be released", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Unlock("browser-farm", false)
				return err
			},
			want: badInputSaying("is not locked"), after: nothingChanged,
		},

		// status
		{
			name: "an agent's status counts its unread mail", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				st, err := ReadStatus(d.Workspace(), d.Agent())
				if err == nil && st.Unread != 5 {
					return fmt.Errorf("the status counts %d unread; want 5", st.Unread)
				}
				return err
			},
			// It keeps an index of the inbox, for the next look.
			want: allowed(), after: nothingChangedBut("mailboxes/tester_agent/inbox.index"),
		},

		// down
		{
			name: "a tester may not stop the team, and the overseers are told", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Down(context.Background(), nil)
				return err
			},
			want: byRules(ErrNoRight), after: posts("tester_agent", "master_agent", mailbox.TypeStatus),
		},
		{
			name: "the operator may stop the team, which does not run", agent: mailbox.Operator,
			call: func(d *Desk, w *world) error {
				_, err := d.Down(context.Background(), nil)
				return err
			},
			want: allowed(), after: nothingChanged,
		},

		// up
		{
			name: "a tester may not bring the team up, and the overseers are told", agent: "tester_agent",
			call: func(d *Desk, w *world) error {
				_, err := d.Up(context.Background(), UpRequest{})
				return err
			},
			want: byRules(ErrNoRight), after: posts("tester_agent", "master_agent", mailbox.TypeStatus),
		},
		{
			name: "a helper may not bring the team up", agent: helper,
			call: func(d *Desk, w *world) error {
				_, err := d.Up(context.Background(), UpRequest{})
				return err
			},
			want: byRules(ErrNoRight), after: posts(helper, "master_agent", mailbox.TypeStatus),
		},
		{
			name: "with rules that do not load, not even an overseer may bring the team up", agent: "master_agent", broken: true,
			call: func(d *Desk, w *world) error {
				_, err := d.Up(context.Background(), UpRequest{})
				return err
			},
			want: byRules(ErrNoRules), after: nothingChanged,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			err := c.call(w.desk(c.agent, c.broken), w)
			if !c.want.match(err) {
				t.Fatalf("%s: %v; want it %s", c.agent, err, c.want.said)
			}
			c.after(t, w)
		})
	}
}
