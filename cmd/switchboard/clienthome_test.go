package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/conversation"
	"switchboard/internal/testkit/realclient"
)

func TestCodexSettingsFromTheProfilesHome(t *testing.T) {
	testSettingsFromTheProfilesHome(t, realclient.Codex)
}

func TestGeminiSettingsFromTheProfilesHome(t *testing.T) {
	testSettingsFromTheProfilesHome(t, realclient.GeminiCLI)
}

// testSettingsFromTheProfilesHome: a profile whose environment sets HOME
// to the folder holding the user's client settings (a custom model
// provider) brings the agent up at its prompt, talking to that provider,
// though `up` runs from a home without them. Before, Codex opened on its
// sign-in screen.
func testSettingsFromTheProfilesHome(t *testing.T, c realclient.Client) {
	t.Parallel() // as testHeadless
	program := c.Install(t)
	tm := newTeam(t)
	u := c.NewUser(t, tm.root)
	tm.env = append(quickExit(withEnv(u.Env, "HOME", t.TempDir())), "CI=true")
	command, _ := json.Marshal(append([]string{program}, c.Interactive[1:]...))
	const agent = "developer_agent"
	writeTestFile(t, filepath.Join(tm.root, "agents", agent+".yaml"),
		fmt.Sprintf("display_name: Developer Agent\nkind: %s\ncommand: %s\nenv:\n  HOME: %q\n", c.Kind, command, u.Home))

	u.API.Respond(replyToEachAnnounced("Done"))

	tm.must("up", "-d", "--no-console", "--socket", tm.socket)
	waitUntil(t, time.Minute, agent+" to be idle at its prompt", func() bool { return tm.state(agent).State == conversation.Idle }, tm.diagnose)
	mark := u.API.Mark()
	id := tm.sendAs("reviewer_agent", agent, "Review the login change")
	waitUntil(t, time.Minute, "the reply through the profile's provider", func() bool {
		return len(responsesTo(t, tm.store, "reviewer_agent", id)) == 1
	}, func() string { return tm.diagnose() + dumpRequests(u.API.Since(mark)) })
	tm.must("down")
}

// withEnv is env with name set to value.
func withEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
