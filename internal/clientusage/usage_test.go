package clientusage_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"switchboard/internal/clientusage"
)

func write(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEachAnswerIsCountedOnce(t *testing.T) {
	claude := write(t,
		`{"type":"assistant","timestamp":"2026-11-28T09:00:00Z","message":{"id":"m1","model":"claude-opus-5","usage":{"input_tokens":100,"output_tokens":1,"cache_read_input_tokens":7,"cache_creation_input_tokens":3}}}`,
		`{"type":"assistant","timestamp":"2026-11-28T09:00:01Z","message":{"id":"m1","model":"claude-opus-5","usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":7,"cache_creation_input_tokens":3}}}`,
		`{"type":"user","message":{"content":"\"type\":\"assistant\" in a quote"}}`,
		`{"type":"assistant","timestamp":"2026-11-27T09:00:00Z","message":{"id":"m0","model":"claude-opus-5","usage":{"input_tokens":5000,"output_tokens":5000}}}`)
	u, err := clientusage.ReadTranscript(claude, time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if got := u["claude-opus-5"]; got != (clientusage.Tokens{In: 100, Out: 20, CacheRead: 7, CacheWrite: 3}) {
		t.Errorf("Claude Code: %+v; want the answer once, as its last line says, and yesterday's left out", got)
	}

	codex := write(t,
		`{"timestamp":"2026-11-28T09:00:00Z","type":"turn_context","payload":{"model":"gpt-5"}}`,
		`{"timestamp":"2026-11-28T09:00:01Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":110},"last_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":10}}}}`,
		`{"timestamp":"2026-11-28T09:00:02Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":110},"last_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":10}}}}`,
		`{"timestamp":"2026-11-28T09:00:03Z","type":"event_msg","payload":{"type":"token_count","info":null}}`)
	u, _ = clientusage.ReadTranscript(codex, time.Time{})
	if got := u["gpt-5"]; got != (clientusage.Tokens{In: 60, Out: 10, CacheRead: 40}) {
		t.Errorf("Codex CLI: %+v; want the count said twice counted once, its cached input as cache reads", got)
	}

	gemini := write(t,
		`{"id":"g1","timestamp":"2026-11-28T09:00:00Z","type":"gemini","tokens":{"input":50,"output":5,"cached":10,"thoughts":2},"model":"gemini-2.5-pro"}`,
		`{"$set":{"lastUpdated":"2026-11-28T09:00:00Z"}}`,
		`{"id":"g1","timestamp":"2026-11-28T09:00:00Z","type":"gemini","tokens":{"input":50,"output":5,"cached":10,"thoughts":2},"model":"gemini-2.5-pro","toolCalls":[]}`)
	u, _ = clientusage.ReadTranscript(gemini, time.Time{})
	if got := u["gemini-2.5-pro"]; got != (clientusage.Tokens{In: 40, Out: 7, CacheRead: 10}) {
		t.Errorf("Gemini CLI: %+v; want the answer written twice counted once", got)
	}
}

// An agent may list any path as a transcript: a pipe is not waited on, a
// link not followed.
func TestOnlyARegularFileIsRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, link, "/dev/zero"} {
		done := make(chan error, 1)
		go func() { _, err := clientusage.ReadTranscript(path, time.Time{}); done <- err }()
		select {
		case err := <-done:
			if err == nil || (path != link && !errors.Is(err, clientusage.ErrNotRegular)) {
				t.Errorf("%s: %v; want it refused", path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still reading after 10 s", path)
		}
	}
}

func TestAPriceTableEstimatesByPrefix(t *testing.T) {
	u := clientusage.Usage{"claude-sonnet-5": {In: 1_000_000, Out: 1_000_000}, "mystery": {In: 5}}
	cost, unpriced := clientusage.DefaultPrices.Cost(u)
	if cost != 18 || len(unpriced) != 1 || unpriced[0] != "mystery" {
		t.Errorf("cost %v, unpriced %v; want 18 dollars and mystery named", cost, unpriced)
	}
}
