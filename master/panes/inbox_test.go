package panes

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/internal/clientinbox"
	"switchboard/internal/testkit/fakesession"
)

// withInbox gives the developer's Claude Code a session with an inbox, as
// its start-up hook records it.
func (r *paneRig) withInbox() *fakesession.Session {
	r.t.Helper()
	s := fakesession.New(r.t, "session-1", "%0")
	rec := clientinbox.Record{SessionID: s.ID, Transcript: s.Transcript, ConfigDir: s.ConfigDir}
	if err := rec.Write(conversation.Of(r.ws.Store).ClientRecordPath("developer_agent"), ""); err != nil {
		r.t.Fatal(err)
	}
	return s
}

// handedOver are the texts of the user messages the session was sent.
func handedOver(s *fakesession.Session) []string { return s.Texts() }

// A busy agent whose client has an inbox is handed its mail at once,
// whole, with nothing typed; its hooks do not show it again, and the log's
// record says the inbox took it.
func TestABusyAgentIsHandedItsMailThroughItsClientsInbox(t *testing.T) {
	r := newPaneRig(t)
	s := r.withInbox()
	r.state("developer_agent", conversation.Busy)
	s.SetStatus(clientinbox.StatusBusy)
	a := r.deliver("developer_agent", "Review the login change", 1)
	r.look()
	if got := r.tmux.pane("%0").submitted; len(got) != 0 {
		t.Errorf("typed %q into the pane", got)
	}
	texts := handedOver(s)
	if len(texts) != 1 || !strings.Contains(texts[0], a.id) || !strings.Contains(texts[0], "Review the login change") || !strings.Contains(texts[0], "Reviewer Agent") {
		t.Fatalf("the inbox was handed %q; want the message once, with its sender", texts)
	}
	if !conversation.Of(r.ws.Store).Shown("developer_agent").Has(a.file) {
		t.Error("the message handed over is not recorded as shown: its hooks would show it again")
	}
	announced, err := conversation.Of(r.ws.Store).Announcements()
	if err != nil {
		t.Fatal(err)
	}
	if got := announced[1]; len(got) != 1 || got[0].Channel != conversation.ChannelInbox || got[0].To != "developer_agent" {
		t.Errorf("the log's record of #1 = %+v; want the inbox, to developer_agent", got)
	}
	r.look()
	if texts := handedOver(s); len(texts) != 1 {
		t.Errorf("handed over again on the next look: %q", texts)
	}
}

// A message the hooks showed first is not handed over.
func TestTheInboxIsNotHandedWhatAHookShowed(t *testing.T) {
	r := newPaneRig(t)
	s := r.withInbox()
	r.state("developer_agent", conversation.Idle)
	a := r.deliver("developer_agent", "Shown after a tool call", 1)
	if _, err := conversation.Of(r.ws.Store).ClaimShown("developer_agent", []string{a.file}, ""); err != nil {
		t.Fatal(err)
	}
	r.look()
	r.look()
	if texts := handedOver(s); len(texts) != 0 {
		t.Errorf("handed %q over: its hook had shown it", texts)
	}
	if got := r.tmux.pane("%0").submitted; len(got) != 0 {
		t.Errorf("typed %q", got)
	}
}

// A client that takes a message and never puts it into its conversation
// (a send others report) has it given back: its hooks may show it, and it
// is typed once the agent is idle.
func TestMailTheInboxLosesIsTypedWhenTheAgentIsIdle(t *testing.T) {
	r := newPaneRig(t)
	r.panes.inboxWait = 50 * time.Millisecond
	s := r.withInbox()
	s.Take = func(string) bool { return false }
	r.state("developer_agent", conversation.Idle)
	a := r.deliver("developer_agent", "Review the login change", 1)
	r.look() // the screen not seen standing still yet; handed over, and lost
	if texts := handedOver(s); len(texts) != 1 {
		t.Fatalf("handed over %q; want once", texts)
	}
	if conversation.Of(r.ws.Store).Shown("developer_agent").Has(a.file) {
		t.Error("a message lost by the inbox is still recorded as shown: no hook would show it")
	}
	r.look()
	r.look()
	want := "[FROM: Reviewer Agent] Review the login change (switchboard read " + a.id + ")"
	if got := r.tmux.pane("%0").submitted; len(got) != 1 || got[0] != want {
		t.Fatalf("the pane got %q; want %q once", got, want)
	}
}

// A client slow to take a message into its queue (a loaded machine) is
// waited for, not typed at: it takes the message still, and a line typed
// meanwhile would put it into the conversation twice.
func TestMailAClientIsSlowToTakeIsNotTypedToo(t *testing.T) {
	r := newPaneRig(t)
	r.panes.inboxWait = 50 * time.Millisecond
	s := r.withInbox()
	s.Slow = 500 * time.Millisecond
	r.state("developer_agent", conversation.Idle)
	a := r.deliver("developer_agent", "Review the login change", 1)
	r.look() // the screen not seen standing still yet; handed over
	r.look()
	r.look()
	if got := r.tmux.pane("%0").submitted; len(got) != 0 {
		t.Errorf("typed %q into the pane as well", got)
	}
	if texts := handedOver(s); len(texts) != 1 || !strings.Contains(texts[0], a.id) {
		t.Errorf("handed over %q; want the message once", texts)
	}
	announced, err := conversation.Of(r.ws.Store).Announcements()
	if err != nil {
		t.Fatal(err)
	}
	if got := announced[1]; len(got) != 1 || got[0].Channel != conversation.ChannelInbox {
		t.Errorf("the log's record of #1 = %+v; want the inbox", got)
	}
}

// The client's registry says the agent waits on a permission prompt after
// its hook said busy: the newer word stands.
func TestTheClientsRegistryIsAStateSource(t *testing.T) {
	r := newPaneRig(t)
	s := r.withInbox()
	if err := conversation.Of(r.ws.Store).SetState("developer_agent", conversation.State{State: conversation.Busy, Since: time.Now().Add(-time.Minute), Source: conversation.SourceHook}); err != nil {
		t.Fatal(err)
	}
	s.SetStatus(clientinbox.StatusWaiting)
	r.look()
	if border := r.tmux.labels["%0 @sb_title"]; !strings.Contains(border, "waiting") {
		t.Errorf("border = %q; want waiting, as the client's registry says", border)
	}
	// agents, the console and the web view read the state file.
	if st, _, _ := conversation.Of(r.ws.Store).State("developer_agent"); st.State != conversation.Waiting || st.Source != conversation.SourceClient {
		t.Errorf("state file %+v; want waiting, from the client", st)
	}
	r.state("developer_agent", conversation.Idle) // its hook speaks after
	r.look()
	if border := r.tmux.labels["%0 @sb_title"]; !strings.Contains(border, "idle") {
		t.Errorf("border = %q; want idle, as its hook said last", border)
	}
}

// An agent that writes its client's record by hand, naming a teammate's
// session, does not get its notices handed into the teammate's
// conversation: the session says which pane it runs in.
func TestARecordNamingAnotherPanesSessionIsNotBelieved(t *testing.T) {
	r := newPaneRig(t)
	teammate := fakesession.New(t, "reviewers-session", "%2")
	rec := clientinbox.Record{SessionID: teammate.ID, Transcript: teammate.Transcript, ConfigDir: teammate.ConfigDir}
	if err := rec.Write(conversation.Of(r.ws.Store).ClientRecordPath("developer_agent"), ""); err != nil {
		t.Fatal(err)
	}
	r.state("developer_agent", conversation.Idle)
	a := r.deliver("developer_agent", "Forward this to the reviewer", 1)
	r.look()
	r.look()
	if texts := handedOver(teammate); len(texts) != 0 {
		t.Errorf("the teammate's session was handed %q", texts)
	}
	want := "[FROM: Reviewer Agent] Forward this to the reviewer (switchboard read " + a.id + ")"
	if got := r.tmux.pane("%0").submitted; len(got) != 1 || got[0] != want {
		t.Errorf("the agent's own pane got %q; want %q typed once", got, want)
	}
}

// An inbox that refuses switchboard's key takes nothing: the notice is
// typed once the client has had its time to take it.
func TestAnInboxThatRefusesTheKeyIsTypedAt(t *testing.T) {
	r := newPaneRig(t)
	r.panes.inboxTake = 50 * time.Millisecond
	s := r.withInbox()
	s.PlantKey("not-the-token")
	r.state("developer_agent", conversation.Idle)
	a := r.deliver("developer_agent", "Review the login change", 1)
	r.look()
	r.look()
	r.look()
	want := "[FROM: Reviewer Agent] Review the login change (switchboard read " + a.id + ")"
	if got := r.tmux.pane("%0").submitted; len(got) != 1 || got[0] != want {
		t.Fatalf("the pane got %q; want %q once", got, want)
	}
}

// More mail than one hook lists goes over in parts, each message once.
func TestMoreMailThanOneListingGoesOverInParts(t *testing.T) {
	r := newPaneRig(t)
	s := r.withInbox()
	r.state("developer_agent", conversation.Busy)
	s.SetStatus(clientinbox.StatusBusy)
	var ids []string
	for i := 1; i <= 13; i++ {
		ids = append(ids, r.deliver("developer_agent", fmt.Sprintf("Message %d", i), int64(i)).id)
	}
	for range 3 {
		r.look()
	}
	all := strings.Join(handedOver(s), "\n")
	for _, id := range ids {
		if n := strings.Count(all, id); n != 1 {
			t.Errorf("message %s handed over %d times; want once", id, n)
		}
	}
	if got := r.tmux.pane("%0").submitted; len(got) != 0 {
		t.Errorf("typed %q", got)
	}
}
