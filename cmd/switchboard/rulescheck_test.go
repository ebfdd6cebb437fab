package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/profile"
)

// TestRulesCheckTellsEveryMistake: rules check of a file with two
// different mistakes prints both, each with its line, and fails.
func TestRulesCheckTellsEveryMistake(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SWITCHBOARD_AGENT", "")
	t.Setenv("SWITCHBOARD_ROOT", root)
	path := filepath.Join(root, "communication_rules.yaml")
	rulesText := `allowed_interactions:
  master_agent:
    can_send_to: ["*"]
    can_receive_from: ["*"]
  developer_agent:
    can_send_to: ["master_agent"]
    can_receive_from: ["master_agent"]
oversight: ["mastr_agent"]
intrerupts: ["master_agent"]
`
	if err := os.WriteFile(path, []byte(rulesText), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"rules", "check"}, &streams{in: strings.NewReader(""), out: &out, errOut: &errOut})
	if code != exitError {
		t.Errorf("exit %d; want %d", code, exitError)
	}
	for _, want := range []string{
		path + `:8: oversight: "mastr_agent" is not an agent of this team: it has no entry in allowed_interactions and no profile; did you mean master_agent?`,
		path + `:9: unknown key "intrerupts"`,
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("rules check said:\n%s\nwant it to say %q", errOut.String(), want)
		}
	}
	if strings.Contains(out.String(), "valid") {
		t.Errorf("rules check called the file valid: %s", out.String())
	}
}
