package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultTeamLoads(t *testing.T) {
	r, err := Load(filepath.Join("..", "profile", "defaultteam", FileName))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"developer_agent", "master_agent", "operator", "reviewer_agent", "tester_agent"}
	if got := r.Agents(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Agents() = %v; want %v", got, want)
	}
	if w := r.Warnings(); len(w) != 0 {
		t.Errorf("the default team has warnings: %v", w)
	}
}

func TestLoadErrorsSayFileAndLine(t *testing.T) {
	tests := []struct {
		name, text string
		line       int
		msg        string
	}{
		{"unknown top-level key", "allowed_interactions:\n  a:\n    can_send_to: [b]\nsurprise: 1\n", 4, `unknown key "surprise"`},
		{"unknown agent key", "allowed_interactions:\n  a:\n    can_sned_to: [b]\n", 3, `unknown key "can_sned_to" in the entry of a`},
		{"unknown forbidden key", "allowed_interactions:\n  a: {}\nforbidden_interactions:\n  - from: a\n    to: b\n    why: x\n", 6, `unknown key "why" in a forbidden entry`},
		{"bad name in a list", "allowed_interactions:\n  a:\n    can_send_to: [b, Bad]\n", 3, `a.can_send_to: agent name "Bad" is not valid`},
		{"bad agent key", "allowed_interactions:\n  Dev:\n    can_send_to: [b]\n", 2, `agent name "Dev" is not valid`},
		{"wildcard in oversight", "allowed_interactions:\n  a: {}\noversight: [\"*\"]\n", 3, `"*" is not allowed here`},
		{"forbidden without to", "allowed_interactions:\n  a: {}\nforbidden_interactions:\n  - from: a\n", 4, `forbidden entry has no "to"`},
		{"yaml syntax", "allowed_interactions:\n  a: [\n", 2, "did not find expected node content"},
		{"duplicate key", "allowed_interactions:\n  a: {}\n  a: {}\n", 3, `"a" is repeated in allowed_interactions (first at line 2)`},
		{"duplicate top-level key", "allowed_interactions:\n  a: {}\noversight: [a]\nallowed_interactions:\n  b: {}\n", 4, `"allowed_interactions" is repeated in the rules file (first at line 1)`},
		{"duplicate key in an entry", "allowed_interactions:\n  a:\n    can_send_to: [b]\n    can_send_to: [c]\n", 4, `"can_send_to" is repeated in the entry of a (first at line 3)`},
		{"duplicate key in a forbidden entry", "allowed_interactions:\n  a: {}\nforbidden_interactions:\n  - from: a\n    to: b\n    from: c\n", 6, `"from" is repeated in a forbidden entry (first at line 4)`},
		{"yaml tab", "allowed_interactions:\n  a:\n\tcan_send_to: [b]\n", 3, "found character that cannot start any token"},
		{"yaml mapping in a value", "allowed_interactions:\n  a:\n    can_send_to: [b]\n  b: c: d\n", 4, "mapping values are not allowed in this context"},
		{"a key indented too far, far below the block", "allowed_interactions:\n  a:\n    can_send_to: [b]\n  b:\n    can_send_to: [a]\n\n# more\noversight: [a]\n   interrupts: [a]\n", 9, "did not find expected key: this line's indentation does not match"},
		{"a key indented one space short", "allowed_interactions:\n  a:\n    can_send_to: [b]\n   can_receive_from: [b]\n", 4, "did not find expected key"},
		{"a forbidden entry's key indented short", "allowed_interactions:\n  a: {}\nforbidden_interactions:\n  - from: a\n   to: b\n", 5, "did not find expected '-' indicator: this line's indentation does not match the list above it"},
		{"wildcard in interrupts", "allowed_interactions:\n  a: {}\ninterrupts:\n  - a\n  - \"*\"\n", 5, `interrupts must name agents; "*" is not allowed here`},
		{"reserved name in a list", "allowed_interactions:\n  a:\n    can_send_to:\n      - b\n      - log\n", 5, `a.can_send_to: agent name "log" is reserved`},
		{"bad name in oversight", "allowed_interactions:\n  a: {}\n\noversight: [a, Boss]\n", 4, `oversight: agent name "Boss" is not valid`},
		{"bad name in a forbidden entry", "allowed_interactions:\n  a: {}\nforbidden_interactions:\n  - from: a\n    to: All\n", 4, `forbidden entry to: agent name "All" is not valid`},
		{"forbidden to as a list", "allowed_interactions:\n  a: {}\nforbidden_interactions:\n  - from: a\n    to: [b]\n", 5, "to must be a single value"},
		{"forbidden not a list", "allowed_interactions:\n  a: {}\nforbidden_interactions:\n  from: a\n", 4, "forbidden_interactions must be a list of {from, to, reason}"},
		{"agent entry not a mapping", "allowed_interactions:\n  a: [b]\n", 2, "the entry of a must be a mapping of keys to values"},
		{"can_send_to a mapping", "allowed_interactions:\n  a:\n    can_send_to: {b: 1}\n", 3, "a.can_send_to must be a list of agent names"},
		{"file a list", "- a\n", 1, "the rules file must be a mapping of keys to values"},
		{"only comments", "# nothing yet\n", 0, "the file is empty"},
		{"empty", "", 0, "the file is empty"},
		{"no agents", "oversight: [a]\n", 1, "allowed_interactions is missing or empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("rules.yaml", []byte(tt.text))
			var rerr *Error
			if !errors.As(err, &rerr) {
				t.Fatalf("Parse = %v; want a *rules.Error", err)
			}
			if rerr.Line != tt.line || !strings.Contains(rerr.Msg, tt.msg) || rerr.Path != "rules.yaml" {
				t.Errorf("error %q at line %d; want line %d with %q", err, rerr.Line, tt.line, tt.msg)
			}
			prefix := fmt.Sprintf("rules.yaml:%d: ", tt.line)
			if tt.line == 0 {
				prefix = "rules.yaml: "
			}
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
		})
	}
}

func TestMissingFileSaysWhere(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	_, err := Load(path)
	if !errors.Is(err, ErrNoRules) || !strings.Contains(err.Error(), path) {
		t.Errorf("Load of a missing file = %v; want ErrNoRules, naming %s", err, path)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load of a missing file = %v; want it to wrap fs.ErrNotExist", err)
	}
}

func TestLoadErrorsNameTheFileLoaded(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("allowed_interactions:\n  a: {}\nintrerupts: [a]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	var rerr *Error
	if !errors.As(err, &rerr) || rerr.Path != path || rerr.Line != 3 {
		t.Fatalf("Load = %#v; want a *rules.Error at %s:3", err, path)
	}
	if want := path + `:3: unknown key "intrerupts"`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q; want it to start with %q", err, want)
	}
}

func TestDefaultTeamReadsAsWritten(t *testing.T) {
	r, err := Load(filepath.Join("..", "profile", "defaultteam", FileName))
	if err != nil {
		t.Fatal(err)
	}
	names := func(ns []Name) string {
		var out []string
		for _, n := range ns {
			out = append(out, n.Value)
		}
		return strings.Join(out, ",")
	}
	want := map[string][2]string{
		"master_agent":    {"*", "*"},
		"developer_agent": {"master_agent,reviewer_agent,tester_agent", "master_agent,reviewer_agent,tester_agent"},
		"reviewer_agent":  {"master_agent,developer_agent", "master_agent,developer_agent"},
		"tester_agent":    {"master_agent,developer_agent", "master_agent,developer_agent"},
	}
	if len(r.Allowed) != len(want) {
		t.Errorf("allowed_interactions has %d agents; want %d", len(r.Allowed), len(want))
	}
	for agent, lists := range want {
		a, ok := r.Allowed[agent]
		if !ok {
			t.Errorf("no entry for %s", agent)
			continue
		}
		if names(a.CanSendTo) != lists[0] || names(a.CanReceiveFrom) != lists[1] {
			t.Errorf("%s: can_send_to %s, can_receive_from %s; want %s and %s", agent, names(a.CanSendTo), names(a.CanReceiveFrom), lists[0], lists[1])
		}
		if a.Line == 0 {
			t.Errorf("%s: the entry has no line", agent)
		}
	}
	if len(r.Forbidden) != 1 || r.Forbidden[0].From != "tester_agent" || r.Forbidden[0].To != "reviewer_agent" || r.Forbidden[0].Reason != "Should go through developer first" {
		t.Errorf("forbidden_interactions = %+v", r.Forbidden)
	}
	if names(r.Oversight) != "master_agent" || names(r.Interrupts) != "master_agent" {
		t.Errorf("oversight %s, interrupts %s; want master_agent for both", names(r.Oversight), names(r.Interrupts))
	}
}
