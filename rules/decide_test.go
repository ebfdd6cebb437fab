package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func defaultTeam(t *testing.T) *Rules {
	t.Helper()
	r, err := Load(filepath.Join("..", "profile", "defaultteam", FileName))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDecideOnTheDefaultTeam(t *testing.T) {
	r := defaultTeam(t)
	tests := []struct {
		from, to string
		allowed  bool
		reason   string
	}{
		{"developer_agent", "reviewer_agent", true, ""},
		{"tester_agent", "developer_agent", true, ""},
		{"master_agent", "tester_agent", true, ""},
		{"tester_agent", "master_agent", true, ""},
		{"tester_agent", "reviewer_agent", false, "Should go through developer first"},
		{"reviewer_agent", "tester_agent", false, "reviewer_agent is not allowed to send to tester_agent, nor does tester_agent accept messages from reviewer_agent (add tester_agent to reviewer_agent's can_send_to, and reviewer_agent to tester_agent's can_receive_from)"},
		{"developer_agent", "developer_agent", false, "developer_agent is writing to itself: a message is for another agent"},
		{"master_agent", "master_agent", true, ""}, // its can_send_to and can_receive_from are "*"
		{"operator", "tester_agent", true, ""},
		{"reviewer_agent", "operator", true, ""},
	}
	for _, tt := range tests {
		d := r.Decide(tt.from, tt.to)
		if d.Allowed != tt.allowed || d.Reason != tt.reason {
			t.Errorf("Decide(%s, %s) = %v %q; want %v %q", tt.from, tt.to, d.Allowed, d.Reason, tt.allowed, tt.reason)
		}
		for _, because := range d.Because {
			if tt.from != "operator" && tt.to != "operator" && !strings.Contains(because, FileName) {
				t.Errorf("Decide(%s, %s) explains with %q, not a line of the file", tt.from, tt.to, because)
			}
		}
	}
	if d := r.Decide("tester_agent", "reviewer_agent"); len(d.Because) != 1 || !strings.Contains(d.Because[0], FileName+":") {
		t.Errorf("a forbidden decision should name its line: %v", d.Because)
	}
}

func TestDecideNamesTheMissingReceive(t *testing.T) {
	r, err := Parse("r.yaml", []byte("allowed_interactions:\n  a:\n    can_send_to: [b]\n  b:\n    can_receive_from: [c]\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := r.Decide("a", "b")
	if d.Allowed || !strings.Contains(d.Reason, "b does not accept messages from a (add a to b's can_receive_from)") {
		t.Errorf("Decide = %+v", d)
	}
}

func TestWildcardsAndTheOperator(t *testing.T) {
	r, err := Parse("r.yaml", []byte(`allowed_interactions:
  a: {can_send_to: ["*"], can_receive_from: ["*"]}
  b: {can_send_to: ["*"], can_receive_from: ["*"]}
  c: {can_send_to: ["*"], can_receive_from: ["*"]}
forbidden_interactions:
  - {from: "*", to: c, reason: "c is heads-down"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Decide("a", "c"); d.Allowed || d.Reason != "c is heads-down" {
		t.Errorf("a → c = %+v; a forbidden from * must hold", d)
	}
	if d := r.Decide("operator", "c"); d.Allowed {
		t.Errorf("operator → c allowed; a forbidden entry overrides the operator too")
	}
	if got := r.Recipients("a", []string{"*"}); strings.Join(got, ",") != "b,c" {
		t.Errorf("Recipients(a, *) = %v; want b, c (not a, not the operator)", got)
	}
	named, err := Parse("r.yaml", []byte("allowed_interactions:\n  a: {can_send_to: [b]}\n  b: {can_receive_from: [a]}\n  operator: {can_send_to: [a]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := named.Decide("operator", "b"); d.Allowed {
		t.Errorf("operator → b allowed although the rules name the operator and do not allow it")
	}
	if named.IsOverseer("operator") {
		t.Errorf("the operator oversees although the rules name it")
	}
}

func TestOversightAndInterrupts(t *testing.T) {
	r := defaultTeam(t)
	if !r.IsOverseer("master_agent") || r.IsOverseer("developer_agent") || !r.IsOverseer("operator") {
		t.Errorf("IsOverseer wrong on the default team")
	}
	if !r.MayInterrupt("master_agent") || r.MayInterrupt("tester_agent") || !r.MayInterrupt("operator") {
		t.Errorf("MayInterrupt wrong on the default team")
	}
	defaulted, _ := Parse("r.yaml", []byte("allowed_interactions:\n  a: {}\n  b: {}\noversight: [a]\n"))
	if !defaulted.MayInterrupt("a") || defaulted.MayInterrupt("b") {
		t.Errorf("without an interrupts list, the overseers should interrupt")
	}
	none, _ := Parse("r.yaml", []byte("allowed_interactions:\n  a: {}\noversight: [a]\ninterrupts: []\n"))
	if none.MayInterrupt("a") || !none.MayInterrupt("operator") {
		t.Errorf("an empty interrupts list leaves only the operator")
	}
}

func parseRules(t *testing.T, text string) *Rules {
	t.Helper()
	r, err := Parse("team.yaml", []byte(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return r
}

func TestDecideExplainsWithFileAndLine(t *testing.T) {
	r := parseRules(t, `allowed_interactions:
  developer_agent:
    can_send_to: [reviewer_agent]
    can_receive_from: [reviewer_agent]
  reviewer_agent:
    can_send_to: [developer_agent]
    can_receive_from:
      - developer_agent
  tester_agent:
    can_send_to: ["*"]
`)
	tests := []struct {
		from, to string
		allowed  bool
		reason   string
		because  []string
	}{
		{"developer_agent", "reviewer_agent", true, "", []string{
			"team.yaml:3: developer_agent can_send_to reviewer_agent",
			"team.yaml:8: reviewer_agent can_receive_from developer_agent",
		}},
		{"reviewer_agent", "tester_agent", false, "reviewer_agent is not allowed to send to tester_agent, nor does tester_agent accept messages from reviewer_agent (add tester_agent to reviewer_agent's can_send_to, and reviewer_agent to tester_agent's can_receive_from)", []string{
			"team.yaml:5: reviewer_agent's can_send_to does not name tester_agent",
			"team.yaml:9: tester_agent's can_receive_from does not name reviewer_agent",
		}},
		{"tester_agent", "reviewer_agent", false, "reviewer_agent does not accept messages from tester_agent (add tester_agent to reviewer_agent's can_receive_from)", []string{
			"team.yaml:10: tester_agent can_send_to *",
			"team.yaml:5: reviewer_agent's can_receive_from does not name tester_agent",
		}},
		{"stranger", "developer_agent", false, "stranger is not allowed to send to developer_agent, nor does developer_agent accept messages from stranger (add developer_agent to stranger's can_send_to, and stranger to developer_agent's can_receive_from)", []string{
			"team.yaml: stranger has no entry in allowed_interactions",
			"team.yaml:2: developer_agent's can_receive_from does not name stranger",
		}},
	}
	for _, tt := range tests {
		d := r.Decide(tt.from, tt.to)
		if d.From != tt.from || d.To != tt.to || d.Allowed != tt.allowed || d.Reason != tt.reason {
			t.Errorf("Decide(%s, %s) = %+v; want allowed %v, reason %q", tt.from, tt.to, d, tt.allowed, tt.reason)
		}
		if strings.Join(d.Because, "\n") != strings.Join(tt.because, "\n") {
			t.Errorf("Decide(%s, %s) because:\n%s\nwant:\n%s", tt.from, tt.to, strings.Join(d.Because, "\n"), strings.Join(tt.because, "\n"))
		}
	}
}

func TestDecideOnTheDefaultTeamCitesItsLines(t *testing.T) {
	r := defaultTeam(t)
	cite := regexp.MustCompile(`^\.\./profile/defaultteam/communication_rules\.yaml:[1-9][0-9]*: `)
	agents := []string{"master_agent", "developer_agent", "reviewer_agent", "tester_agent"}
	for _, from := range agents {
		for _, to := range agents {
			if from == to {
				continue
			}
			d := r.Decide(from, to)
			if len(d.Because) == 0 {
				t.Errorf("Decide(%s, %s) gives no reason", from, to)
			}
			for _, because := range d.Because {
				if !cite.MatchString(because) {
					t.Errorf("Decide(%s, %s) explains with %q, without file:line", from, to, because)
				}
			}
		}
	}
	// The forbidden entry is cited by the line of its first key.
	data, err := os.ReadFile(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, text := range strings.Split(string(data), "\n") {
		if strings.Contains(text, `- from: "tester_agent"`) {
			line = i + 1
		}
	}
	d := r.Decide("tester_agent", "reviewer_agent")
	if want := fmt.Sprintf(`../profile/defaultteam/communication_rules.yaml:%d: forbidden: tester_agent → reviewer_agent ("Should go through developer first")`, line); len(d.Because) != 1 || d.Because[0] != want {
		t.Errorf("Decide(tester_agent, reviewer_agent) because %q; want %q", d.Because, want)
	}
}

func TestForbiddenWildcards(t *testing.T) {
	r := parseRules(t, `allowed_interactions:
  a: {can_send_to: ["*"], can_receive_from: ["*"]}
  b: {can_send_to: ["*"], can_receive_from: ["*"]}
  c: {can_send_to: ["*"], can_receive_from: ["*"]}
forbidden_interactions:
  - from: b
    to: "*"
  - {from: "*", to: c, reason: "c is heads-down"}
`)
	tests := []struct {
		from, to string
		allowed  bool
		reason   string
	}{
		{"a", "b", true, ""},
		{"b", "a", false, "b may not send to a"}, // no reason given: one is made
		{"b", "c", false, "b may not send to c"}, // the first entry that matches decides
		{"b", "operator", false, "b may not send to operator"},
		{"a", "c", false, "c is heads-down"},
		{"operator", "c", false, "c is heads-down"},
		{"c", "a", true, ""},
	}
	for _, tt := range tests {
		d := r.Decide(tt.from, tt.to)
		if d.Allowed != tt.allowed || d.Reason != tt.reason {
			t.Errorf("Decide(%s, %s) = %v %q; want %v %q", tt.from, tt.to, d.Allowed, d.Reason, tt.allowed, tt.reason)
		}
	}
	if d := r.Decide("b", "a"); len(d.Because) != 1 || d.Because[0] != `team.yaml:6: forbidden: b → * ("")` {
		t.Errorf("Decide(b, a) because %q; want the forbidden entry at line 6", d.Because)
	}
}

func TestTheOperatorTalksWithEveryoneUnlessNamed(t *testing.T) {
	team := defaultTeam(t)
	for _, agent := range []string{"master_agent", "developer_agent", "reviewer_agent", "tester_agent"} {
		if d := team.Decide("operator", agent); !d.Allowed {
			t.Errorf("operator → %s blocked on the default team: %s", agent, d.Reason)
		}
		if d := team.Decide(agent, "operator"); !d.Allowed {
			t.Errorf("%s → operator blocked on the default team: %s", agent, d.Reason)
		}
	}
	if d := team.Decide("operator", "developer_agent"); len(d.Because) == 0 || !strings.Contains(strings.Join(d.Because, " "), "the rules do not name it") {
		t.Errorf("operator → developer_agent because %q; want it to say why the operator may", d.Because)
	}

	named := parseRules(t, `allowed_interactions:
  a:
    can_send_to: [b]
    can_receive_from: [b]
  b:
    can_send_to: [a]
    can_receive_from: [a, operator]
  operator:
    can_send_to: [b]
`)
	tests := []struct {
		from, to string
		allowed  bool
		reason   string
	}{
		{"operator", "b", true, ""},
		{"operator", "a", false, "can_send_to"},
		{"a", "operator", false, "can_send_to"},
		{"b", "operator", false, "can_send_to"},
	}
	for _, tt := range tests {
		d := named.Decide(tt.from, tt.to)
		if d.Allowed != tt.allowed || !strings.Contains(d.Reason, tt.reason) {
			t.Errorf("with the operator named: Decide(%s, %s) = %v %q; want %v, a reason naming %q", tt.from, tt.to, d.Allowed, d.Reason, tt.allowed, tt.reason)
		}
	}

	// Named only in oversight, the operator loses its free pass too.
	overseer := parseRules(t, "allowed_interactions:\n  a: {can_send_to: [b], can_receive_from: [b]}\n  b: {can_send_to: [a], can_receive_from: [a]}\noversight: [operator]\n")
	if d := overseer.Decide("operator", "a"); d.Allowed {
		t.Errorf("operator → a allowed although the rules name the operator and give it no entry")
	}
	if d := overseer.Decide("a", "operator"); d.Allowed {
		t.Errorf("a → operator allowed although the rules name the operator and a may not send to it")
	}
}

func TestRecipientsOfABroadcast(t *testing.T) {
	team := defaultTeam(t)
	tests := []struct {
		from string
		to   []string
		want []string
	}{
		{"master_agent", []string{"*"}, []string{"developer_agent", "reviewer_agent", "tester_agent"}},
		{"developer_agent", []string{"*"}, []string{"master_agent", "reviewer_agent", "tester_agent"}},
		{"operator", []string{"*"}, []string{"developer_agent", "master_agent", "reviewer_agent", "tester_agent"}},
		{"master_agent", []string{"tester_agent", "developer_agent"}, []string{"tester_agent", "developer_agent"}},
		{"master_agent", []string{"operator"}, []string{"operator"}},
	}
	for _, tt := range tests {
		if got := team.Recipients(tt.from, tt.to); !slices.Equal(got, tt.want) {
			t.Errorf("Recipients(%s, %q) = %q; want %q", tt.from, tt.to, got, tt.want)
		}
	}
	named := parseRules(t, "allowed_interactions:\n  a: {}\n  operator: {}\n")
	if got := named.Recipients("a", []string{"*"}); !slices.Equal(got, []string{"operator"}) {
		t.Errorf("Recipients(a, *) with the operator named = %q; want [operator]", got)
	}
}

func TestAgentsAreSortedAndIncludeTheOperator(t *testing.T) {
	r := parseRules(t, `allowed_interactions:
  zed: {can_send_to: [yan, "*"], can_receive_from: [alf]}
  mia: {}
forbidden_interactions:
  - {from: "*", to: bob}
oversight: [kim]
interrupts: [kim, zed]
`)
	want := []string{"alf", "bob", "kim", "mia", "operator", "yan", "zed"}
	if got := r.Agents(); !slices.Equal(got, want) {
		t.Errorf("Agents() = %q; want %q", got, want)
	}
	for _, agent := range want {
		if !r.Knows(agent) {
			t.Errorf("Knows(%s) = false", agent)
		}
	}
	if r.Knows("*") || r.Knows("stranger") {
		t.Errorf("Knows accepts an agent the rules do not name")
	}
	got := r.Agents()
	got[0] = "changed"
	if r.Agents()[0] != "alf" {
		t.Errorf("changing the slice Agents returned changed the team")
	}
}

func TestOverseersAndInterrupters(t *testing.T) {
	team := "allowed_interactions:\n  boss: {}\n  dev: {}\n  qa: {}\noversight: [boss]\n"
	tests := []struct {
		name      string
		text      string
		overseers []string // of boss, dev, qa, operator
		may       []string
	}{
		{"no interrupts list: the oversight list", team, []string{"boss", "operator"}, []string{"boss", "operator"}},
		{"its own list", team + "interrupts: [qa]\n", []string{"boss", "operator"}, []string{"qa", "operator"}},
		{"an empty list: nobody but the operator", team + "interrupts: []\n", []string{"boss", "operator"}, []string{"operator"}},
		{"no oversight, no interrupts", "allowed_interactions:\n  boss: {}\n  dev: {}\n  qa: {}\n", []string{"operator"}, []string{"operator"}},
		{"the operator named", team + "interrupts: [operator]\n", []string{"boss"}, []string{"operator"}},
		{"the operator named elsewhere", team + "forbidden_interactions:\n  - {from: operator, to: qa}\n", []string{"boss"}, []string{"boss"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := parseRules(t, tt.text)
			for _, agent := range []string{"boss", "dev", "qa", "operator"} {
				if got, want := r.IsOverseer(agent), slices.Contains(tt.overseers, agent); got != want {
					t.Errorf("IsOverseer(%s) = %v; want %v", agent, got, want)
				}
				if got, want := r.MayInterrupt(agent), slices.Contains(tt.may, agent); got != want {
					t.Errorf("MayInterrupt(%s) = %v; want %v", agent, got, want)
				}
			}
		})
	}
}

// Completion offers a sender the agents it may write to, never itself.
func TestReachable(t *testing.T) {
	r, err := Parse("rules.yaml", []byte(`allowed_interactions:
  master_agent: {can_send_to: ["*"], can_receive_from: ["*"]}
  developer_agent: {can_send_to: [master_agent, reviewer_agent, tester_agent], can_receive_from: [master_agent, reviewer_agent, tester_agent]}
  reviewer_agent: {can_send_to: [master_agent, developer_agent], can_receive_from: [master_agent, developer_agent]}
  tester_agent: {can_send_to: [master_agent, developer_agent, reviewer_agent], can_receive_from: [master_agent, developer_agent, reviewer_agent]}
forbidden_interactions:
  - {from: tester_agent, to: reviewer_agent, reason: through the developer}
`))
	if err != nil {
		t.Fatal(err)
	}
	for from, want := range map[string]string{
		"tester_agent":   "developer_agent master_agent operator",
		"reviewer_agent": "developer_agent master_agent operator",
		"master_agent":   "developer_agent operator reviewer_agent tester_agent",
		"operator":       "developer_agent master_agent reviewer_agent tester_agent",
	} {
		if got := strings.Join(r.Reachable(from), " "); got != want {
			t.Errorf("Reachable(%s) = %s; want %s", from, got, want)
		}
	}
}
