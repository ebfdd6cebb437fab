package panes

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/internal/tmux"
	"switchboard/mailbox"
)

// restarter stands in for the master's restart of a client: it brings the
// fake pane back to life, and counts.
type restarter struct {
	mu        sync.Mutex
	r         *paneRig
	started   []string
	loops     []string
	loopLines []string
}

func withRestarts(r *paneRig) *restarter {
	rs := &restarter{r: r}
	r.panes.restartPauses = make([]time.Duration, maxRestarts)
	r.panes.restartClient = func(_ context.Context, _ *tmux.Client, agent string) error {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		rs.started = append(rs.started, agent)
		r.tmux.mu.Lock()
		r.tmux.panes["%0"].dead = false
		r.tmux.panes["%0"].screen = "Claude Code\n> "
		r.tmux.mu.Unlock()
		return nil
	}
	r.panes.crashLoop = func(agent, why string, lines []string) {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		rs.loops = append(rs.loops, agent+": "+why)
		rs.loopLines = lines
	}
	return rs
}

// die ends the developer's client, with its last words on screen.
func (r *paneRig) die(words string) {
	r.tmux.mu.Lock()
	r.tmux.panes["%0"].dead = true
	r.tmux.panes["%0"].screen = words + "\n"
	r.tmux.mu.Unlock()
}

// A client that came up and then ended is started again; mail that came
// meanwhile is announced once it is back.
func TestAClientThatEndsIsStartedAgain(t *testing.T) {
	r := newPaneRig(t)
	rs := withRestarts(r)
	r.state("developer_agent", conversation.Idle)
	r.look()
	r.die("Killed")
	a := r.deliver("developer_agent", "Review the login change", 1)
	r.look()
	if !slices.Equal(rs.started, []string{"developer_agent"}) {
		t.Fatalf("started again: %q; want developer_agent once", rs.started)
	}
	if got := r.tmux.pane("%0").submitted; len(got) != 0 {
		t.Errorf("typed %q into a dead pane", got)
	}
	r.state("developer_agent", conversation.Idle) // its start-up hook
	r.look()
	r.look()
	want := "[FROM: Reviewer Agent] Review the login change (switchboard read " + a.id + ")"
	if got := r.tmux.pane("%0").submitted; len(got) != 1 || got[0] != want {
		t.Errorf("after the restart the pane got %q; want %q once", got, want)
	}
}

// A client started again on a new conversation (its last could not be gone
// on with) hears again of the mail typed into the one that ended; one that
// goes on with its conversation does not.
func TestMailTypedIntoAConversationThatEndedIsTypedIntoTheNextOne(t *testing.T) {
	for _, resumed := range []bool{false, true} {
		r := newPaneRig(t)
		rs := withRestarts(r)
		if !resumed {
			restart := r.panes.restartClient
			r.panes.restartClient = func(ctx context.Context, c *tmux.Client, agent string) error {
				if err := conversation.Of(r.ws.Store).ResetShown(agent); err != nil { // as a new conversation does
					return err
				}
				return restart(ctx, c, agent)
			}
		}
		r.state("developer_agent", conversation.Idle)
		r.look()
		m := r.logged("developer_agent", "Review the login change", mailbox.PriorityNormal)
		r.panes.announce("developer_agent", announcement{seq: m.Seq, id: m.ID, from: m.From, title: m.Title, file: mailbox.FileName(m.DeliveredAt, m.Priority, m.ID)})
		r.look()
		want := "[FROM: Reviewer Agent] Review the login change (switchboard read " + m.ID + ")"
		if got := r.tmux.pane("%0").submitted; len(got) != 1 || got[0] != want {
			t.Fatalf("before the end the pane got %q; want %q", got, want)
		}
		r.die("Killed")
		r.look()
		if len(rs.started) != 1 {
			t.Fatalf("started again %d times; want once", len(rs.started))
		}
		r.state("developer_agent", conversation.Idle)
		r.look()
		r.look()
		typed := len(r.tmux.pane("%0").submitted)
		switch {
		case !resumed && typed != 2:
			t.Errorf("a new conversation: the pane was typed %d notices in all; want the one again after the restart (2)", typed)
		case resumed && typed != 1:
			t.Errorf("a conversation gone on with: the pane was typed %d notices in all; want 1", typed)
		}
	}
}

// A client that keeps ending is left as it ended after a few restarts, and
// the overseers are told with its last lines; one that never came up (a
// typo in its command, which up reports) is not started again at all.
func TestAClientInACrashLoopIsLeftDown(t *testing.T) {
	r := newPaneRig(t)
	rs := withRestarts(r)
	for i := range maxRestarts + 1 {
		r.state("developer_agent", conversation.Idle)
		r.look()
		r.die("panic: out of tokens " + strings.Repeat("!", i))
		r.look()
	}
	if len(rs.started) != maxRestarts {
		t.Errorf("started again %d times; want %d", len(rs.started), maxRestarts)
	}
	if len(rs.loops) != 1 || !strings.Contains(strings.Join(rs.loopLines, "\n"), "panic: out of tokens") {
		t.Errorf("overseers told %q with %q; want once, with its last lines", rs.loops, rs.loopLines)
	}
	r.look()
	if len(rs.started) != maxRestarts || len(rs.loops) != 1 {
		t.Errorf("after giving up: started %d times, told %d times", len(rs.started), len(rs.loops))
	}
}

func TestAClientThatNeverCameUpIsNotStartedAgain(t *testing.T) {
	r := newPaneRig(t)
	rs := withRestarts(r)
	r.die("claude: unknown option --modle")
	r.look()
	r.look()
	if len(rs.started) != 0 {
		t.Errorf("started again %q: it never came up", rs.started)
	}
}
