package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultTeamLoads(t *testing.T) {
	r, err := Load(filepath.Join("..", FileName))
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
		})
	}
}

func TestMissingFileSaysToInit(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), FileName))
	if err == nil || !strings.Contains(err.Error(), "run `switchboard init`") {
		t.Errorf("Load of a missing file = %v", err)
	}
}

func TestFindWorkspaceWalksUp(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, FileName), []byte("allowed_interactions: {a: {}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "src", "pkg")
	os.MkdirAll(deep, 0o755)
	if got, err := FindWorkspace(deep); err != nil || got != root {
		t.Errorf("FindWorkspace = %q, %v; want %q", got, err, root)
	}
	if _, err := FindWorkspace(t.TempDir()); err == nil || !strings.Contains(err.Error(), "pass --root") {
		t.Errorf("FindWorkspace outside a workspace = %v", err)
	}
}
