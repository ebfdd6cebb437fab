package lifecycle

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/workspace"
)

// TestAHelperIsNamedAfterItsProfileWithTheFirstFreeNumber: a spawned agent
// never takes the name, and so the mailbox, of one before it, and never a
// name past the bound of a name.
func TestAHelperIsNamedAfterItsProfileWithTheFirstFreeNumber(t *testing.T) {
	long := strings.Repeat("d", 62)
	for _, tt := range []struct {
		name, from string
		used       []string
		want       string
	}{
		{"none spawned yet", "developer_agent", nil, "developer_agent-1"},
		{"the first taken", "developer_agent", []string{"developer_agent-1"}, "developer_agent-2"},
		{"a closed one's mailbox stays taken, a gap is filled", "developer_agent", []string{"developer_agent-1", "developer_agent-3"}, "developer_agent-2"},
		{"a helper of a helper", "developer_agent-1", []string{"developer_agent-1"}, "developer_agent-1-1"},
		{"a long profile's name is clipped to the bound", long, nil, strings.Repeat("d", 61) + "-1"},
		{"clipped, and the first taken", long, []string{strings.Repeat("d", 61) + "-1"}, strings.Repeat("d", 61) + "-2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := freeName(tt.from, func(n string) bool { return slices.Contains(tt.used, n) })
			if got != tt.want || len(got) > 63 || mailbox.ValidateAgentName(got) != nil {
				t.Errorf("freeName(%q) with %v taken = %q; want %q, a valid name", tt.from, tt.used, got, tt.want)
			}
		})
	}
}

// TestAPaneIsTheAgentItIsWhateverItsProfileSays: switchboard's own
// variables in a pane name its agent and workspace, whatever a profile (or
// a spawn's --env) puts in them; the rest of the profile's are kept.
func TestAPaneIsTheAgentItIsWhateverItsProfileSays(t *testing.T) {
	ws := workspace.New(t.TempDir())
	for _, tt := range []struct {
		name    string
		profile map[string]string
		want    map[string]string
	}{
		{"no environment of its own", nil, nil},
		{"its own variables kept", map[string]string{"GOFLAGS": "-count=1"}, map[string]string{"GOFLAGS": "-count=1"}},
		{"another agent's name is not taken", map[string]string{"SWITCHBOARD_AGENT": "master_agent"}, nil},
		{"another workspace is not taken", map[string]string{"SWITCHBOARD_ROOT": "/elsewhere", "SWITCHBOARD_BIN": "/elsewhere/bin"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := map[string]string{"SWITCHBOARD_ROOT": ws.Root, "SWITCHBOARD_AGENT": "developer_agent", "SWITCHBOARD_BIN": ws.BinDir()}
			maps.Copy(want, tt.want)
			if got := paneEnv(tt.profile, ws, "developer_agent"); !maps.Equal(got, want) {
				t.Errorf("paneEnv(%v) = %v; want %v", tt.profile, got, want)
			}
		})
	}
}

// TestACancelReachesTheAgentAndEveryAgentUnderItLeavesFirst: each is
// marked cancelled in the registry (which ends its parent's wait) and sent
// an interrupt from the canceller, whose cancel field names the agent it
// works under; agents beside it, and above it, are left alone.
func TestACancelReachesTheAgentAndEveryAgentUnderItLeavesFirst(t *testing.T) {
	tree := map[string]workspace.Spawned{
		"developer_agent-1":   {Profile: "developer_agent", Parent: "developer_agent"},
		"developer_agent-1-1": {Profile: "developer_agent", Parent: "developer_agent-1"},
		"developer_agent-1-2": {Profile: "developer_agent", Parent: "developer_agent-1"},
		"developer_agent-2":   {Profile: "developer_agent", Parent: "developer_agent"},
		"tester_agent-1":      {Profile: "tester_agent", Parent: "tester_agent"},
	}
	for _, tt := range []struct {
		name, by, agent, reason string
		want                    []string
	}{
		{"a helper with helpers of its own", "developer_agent", "developer_agent-1", "the plan changed", []string{"developer_agent-1-1", "developer_agent-1-2", "developer_agent-1"}},
		{"a helper alone", "developer_agent", "developer_agent-2", "", []string{"developer_agent-2"}},
		{"an agent of the rules, and all its helpers", "master_agent", "developer_agent", "stop", []string{"developer_agent-1-1", "developer_agent-1-2", "developer_agent-1", "developer_agent-2", "developer_agent"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := workspace.New(t.TempDir())
			if err := ws.UpdateSpawned(func(all map[string]workspace.Spawned) error {
				maps.Copy(all, tree)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			got, err := Cancel(ws, tt.by, tt.agent, tt.reason)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("Cancel(%s) = %v, %v; want %v", tt.agent, got, err, tt.want)
			}
			after, err := ws.Spawned()
			if err != nil {
				t.Fatal(err)
			}
			for name := range tree {
				c := after[name].Cancelled
				if cancelled := slices.Contains(tt.want, name); cancelled != (c != nil) || c != nil && (c.By != tt.by || c.Reason != tt.reason) {
					t.Errorf("%s is marked %+v; want it cancelled: %v, by %s", name, c, cancelled, tt.by)
				}
			}
			pending, err := ws.Store.Pending(tt.by)
			if err != nil || len(pending) != len(tt.want) {
				t.Fatalf("%s's outbox holds %d (%v); want one interrupt for each of %v", tt.by, len(pending), err, tt.want)
			}
			type notice struct {
				to string
				at time.Time
			}
			var notices []notice
			for _, path := range pending {
				m, err := ws.Store.OpenPending(tt.by, path, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				c, ok := m.Cancel()
				under := ""
				if m.To[0] != tt.agent {
					under = tt.agent
				}
				if !ok || m.Type != mailbox.TypeInterrupt || c.By != tt.by || c.Reason != tt.reason || c.Under != under {
					t.Errorf("the notice to %s: type %s, cancel %+v (%v); want an interrupt cancelled by %s under %q", m.To[0], m.Type, c, ok, tt.by, under)
				}
				notices = append(notices, notice{m.To[0], m.Timestamp})
			}
			slices.SortFunc(notices, func(a, b notice) int { return a.at.Compare(b.at) })
			for i, n := range notices {
				if n.to != tt.want[i] {
					t.Errorf("notice %d in time goes to %s; want %s (leaves first)", i, n.to, tt.want[i])
				}
			}
		})
	}
}

// TestAClientGoesOnWithAConversationOnlyWhereItCan: a fresh profile, or a
// kind of client that cannot go on by an id, always starts anew.
func TestAClientGoesOnWithAConversationOnlyWhereItCan(t *testing.T) {
	store := mailbox.NewStore(t.TempDir())
	for _, tt := range []struct {
		name string
		p    profile.Profile
	}{
		{"a shell", profile.Profile{Name: "developer_agent", Kind: profile.KindShell}},
		{"a fresh Claude Code", profile.Profile{Name: "developer_agent", Kind: profile.KindClaude, Fresh: true}},
		{"a Claude Code with no record of a session", profile.Profile{Name: "developer_agent", Kind: profile.KindClaude}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := resumable(store, &tt.p); got != "" {
				t.Errorf("resumable = %q; want a new conversation", got)
			}
		})
	}
}
