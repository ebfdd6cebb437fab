package realclient

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// API is a stand-in of a model API.
type API interface {
	BaseURL() string
	Respond(Responder)
	BeforeNextAnswer(func() error)
	Mark() int
	Since(mark int) []Request
}

// BaseURL is where the stand-in listens.
func (a *api) BaseURL() string { return a.URL }

// apiKey is the key every client is given; the stand-ins take any.
const apiKey = "sk-switchboard-test-key-0000000000000000"

// User is a person who has set up the client as its documentation says,
// against a stand-in of its model API: a home folder holding the client's
// settings (provider or key chosen, onboarding done), and the environment to
// run the client in.
type User struct {
	API  API
	Home string
	Env  []string
}

// NewUser starts a stand-in for the client and makes a user of it, who works
// in the folder dir. Claude Code has dir trusted (no switchboard flag or file
// can do that for it); Codex CLI and Gemini CLI do not, as their wiring
// trusts the agent's folder itself.
func (c Client) NewUser(t testing.TB, dir string) User {
	t.Helper()
	u := User{Home: t.TempDir()}
	var env []string
	switch c.Package {
	case ClaudeCode.Package:
		api := NewMessagesAPI(t)
		u.API = api
		writeJSON(t, filepath.Join(u.Home, ".claude.json"), map[string]any{
			"hasCompletedOnboarding": true,
			"projects":               map[string]any{dir: map[string]any{"hasTrustDialogAccepted": true}},
			"customApiKeyResponses":  map[string]any{"approved": []string{apiKey[len(apiKey)-20:]}, "rejected": []string{}},
		})
		env = []string{"ANTHROPIC_BASE_URL=" + api.URL, "ANTHROPIC_API_KEY=" + apiKey,
			"CLAUDE_CODE_MAX_RETRIES=0", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
	case Codex.Package:
		api := NewResponsesAPI(t)
		u.API = api
		// A custom provider: Codex ignores OPENAI_BASE_URL.
		config := fmt.Sprintf("model = \"gpt-5\"\nmodel_provider = \"standin\"\n\n[model_providers.standin]\nname = \"stand-in\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"OPENAI_API_KEY\"\n", api.URL+"/v1")
		writeFile(t, filepath.Join(u.Home, ".codex", "config.toml"), config)
		env = []string{"OPENAI_API_KEY=" + apiKey}
	case GeminiCLI.Package:
		api := NewGeminiAPI(t)
		u.API = api
		// Without the auth type, a base URL turns Gemini CLI to "gateway"
		// auth, which it then refuses.
		writeJSON(t, filepath.Join(u.Home, ".gemini", "settings.json"), map[string]any{
			"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		})
		env = []string{"GOOGLE_GEMINI_BASE_URL=" + api.URL, "GEMINI_API_KEY=" + apiKey}
	default:
		t.Fatalf("no stand-in for %s", c.Name)
	}
	u.Env = append(cleanEnv(), append(env, "HOME="+u.Home, "NO_PROXY=127.0.0.1,localhost")...)
	return u
}

// cleanEnv is the test's environment without anything that would send a
// client elsewhere than its stand-in, read another home, or make a
// switchboard command act for someone else.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		switch {
		case upper == "HOME", upper == "TMUX", upper == "TMUX_PANE",
			strings.HasSuffix(upper, "_PROXY"), strings.HasPrefix(upper, "XDG_"),
			strings.HasPrefix(upper, "SWITCHBOARD_"),
			strings.HasPrefix(upper, "ANTHROPIC_"), strings.HasPrefix(upper, "CLAUDE"),
			strings.HasPrefix(upper, "OPENAI_"), strings.HasPrefix(upper, "CODEX_"),
			strings.HasPrefix(upper, "GEMINI_"), strings.HasPrefix(upper, "GOOGLE_"):
			continue
		}
		env = append(env, kv)
	}
	return env
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
