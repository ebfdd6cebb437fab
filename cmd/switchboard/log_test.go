package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"switchboard/mailbox"
	"switchboard/profile"
)

// generatedLog is a workspace of the default team whose audit log holds n
// records, a minute apart from start: message i goes from the developer to
// the reviewer, every tenth from the tester to the developer.
func generatedLog(tb testing.TB, n int, start time.Time) string {
	tb.Helper()
	root := tb.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		tb.Fatal(err)
	}
	store := mailbox.NewStore(root)
	w, err := mailbox.OpenLogWriter(store.LogPath(), false)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	for i := 1; i <= n; i++ {
		from, to := "developer_agent", "reviewer_agent"
		if i%10 == 0 {
			from, to = "tester_agent", "developer_agent"
		}
		at := start.Add(time.Duration(i) * time.Minute)
		msg := &mailbox.Message{ID: mailbox.NewID(), From: from, To: []string{to}, Title: fmt.Sprintf("message %d", i), Content: "body"}
		msg.Normalize(at)
		if _, err := w.AppendUnsynced(mailbox.Record{Time: at, Status: mailbox.StatusDelivered, Delivered: []string{to}, Message: msg}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Sync(); err != nil {
		tb.Fatal(err)
	}
	return root
}

// logCommand runs switchboard in root as the operator.
func logCommand(tb testing.TB, root string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("switchboard", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "SWITCHBOARD_ROOT="+root, "SWITCHBOARD_AGENT=", "TMUX=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("switchboard %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// seqs are the seqs at the start of log lines.
func seqs(out string) string {
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			got = append(got, f[0])
		}
	}
	return strings.Join(got, " ")
}

// TestTheLogIsReadFromWhereItIsAsked: -n, --since and show SEQ find their
// records in a long log, filters included.
func TestTheLogIsReadFromWhereItIsAsked(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	root := generatedLog(t, 5000, start)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"log", "-n", "3"}, "4998 4999 5000"},
		{[]string{"log", "-n", "2", "--agent", "tester_agent"}, "4990 5000"},
		{[]string{"log", "--since", start.Add(4997 * time.Minute).Format(time.RFC3339)}, "4997 4998 4999 5000"},
		{[]string{"log", "--since", start.Add(4980 * time.Minute).Format(time.RFC3339), "-n", "1", "--agent", "tester_agent"}, "5000"},
		{[]string{"log", "-n", "2", "--since", start.Add(4999*time.Minute + time.Second).Format(time.RFC3339)}, "5000"},
	} {
		if got := seqs(logCommand(t, root, c.args...)); got != c.want {
			t.Errorf("%s: seqs %q, want %q", strings.Join(c.args, " "), got, c.want)
		}
	}
	if out := logCommand(t, root, "show", "3217"); !strings.Contains(out, "message 3217") {
		t.Errorf("show 3217:\n%s", out)
	}
	if out := logCommand(t, root, "show", "4999-5000", "--json"); !strings.Contains(out, "message 4999") || !strings.Contains(out, "message 5000") || strings.Contains(out, "message 4998") {
		t.Errorf("show 4999-5000:\n%s", out)
	}
	whole := logCommand(t, root, "log", "--json")
	if !strings.HasPrefix(whole, "[\n  {\n    \"seq\": 1,") || !strings.HasSuffix(whole, "  }\n]\n") || strings.Count(whole, `"seq"`) != 5000 {
		t.Errorf("log --json, streamed, is not the whole array: starts %q, ends %q", whole[:min(40, len(whole))], whole[max(0, len(whole)-40):])
	}
}

func TestSinceTakesTheFormsItSays(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	for text, want := range map[string]time.Time{
		"90m":                  now.Add(-90 * time.Minute),
		"14:30":                time.Date(2026, 11, 25, 14, 30, 0, 0, time.UTC),
		"2026-11-24":           time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC),
		"2026-11-25T10:00:00Z": time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC),
	} {
		if got, err := parseSince(text, now); err != nil || !got.Equal(want) {
			t.Errorf("--since %s: %v %v, want %v", text, got, err, want)
		}
	}
	if _, err := parseSince("yesterday", now); err == nil || !strings.Contains(err.Error(), "90m") {
		t.Errorf("--since yesterday: %v", err)
	}
}

// BenchmarkLogAtAMillion reads a log of a million records the ways a
// person asks: show one, the last 20, the last hour.
//
//	go test -run '^$' -bench LogAtAMillion -benchtime 10x ./cmd/switchboard
func BenchmarkLogAtAMillion(b *testing.B) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 1_000_000
	root := generatedLog(b, n, start)
	for _, c := range [][]string{
		{"show", "654321"},
		{"log", "-n", "20"},
		{"log", "--since", start.Add((n - 60) * time.Minute).Format(time.RFC3339)},
		{"status"}, // the floor: a command that does not read the log
	} {
		b.Run(strings.Join(c, " "), func(b *testing.B) {
			for range b.N {
				logCommand(b, root, c...)
			}
		})
	}
}
