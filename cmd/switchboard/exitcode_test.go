package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"switchboard/profile"
)

// TestExitCodes runs commands in-process and checks the exit code a script
// would branch on.
func TestExitCodes(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SWITCHBOARD_AGENT", "")
	t.Setenv("SWITCHBOARD_ROOT", root)
	tests := []struct {
		args   []string
		code   int
		stderr string
		stdout string // "" is not checked; "-" is nothing
	}{
		{[]string{"send", "--as", "developer_agent", "--to", "reviewer_agent", "--title", "hi"}, exitOK, "master not running", ""},
		// A message the rules block reaches no one: no id to keep.
		{[]string{"send", "--as", "tester_agent", "--to", "reviewer_agent", "--title", "hi"}, exitRefused, "Should go through developer first", "-"},
		{[]string{"send", "--as", "tester_agent", "--to", "reviewer_agent", "--title", "hi", "--json"}, exitRefused, "", `"status":"blocked","reason":"tester_agent → reviewer_agent: Should go through developer first"`},
		{[]string{"send", "--as", "developer_agent", "--to", "reviewer_agent", "--title", "hi", "--json"}, exitOK, "", `"status":"sent"`},
		{[]string{"show", "1", "--as", "tester_agent"}, exitUsage, "not in the log", ""},
		{[]string{"ask", "--as", "tester_agent", "--to", "reviewer_agent", "--title", "hi", "--timeout", "1s"}, exitRefused, "BLOCKED by the rules: tester_agent → reviewer_agent", ""},
		// An agent writing to itself is told so, and no rule to add.
		{[]string{"ask", "--as", "developer_agent", "--to", "developer_agent", "--title", "Ready?", "--timeout", "1s"}, exitRefused, "BLOCKED by the rules: developer_agent → developer_agent: developer_agent is writing to itself: a message is for another agent (the attempt is logged)", ""},
		{[]string{"send", "--to", "reviewer_agent"}, exitUsage, "--title is required", ""},
		{[]string{"send", "--nope"}, exitUsage, "unknown flag", ""},
		{[]string{"nope"}, exitUsage, "unknown command", ""},
		{[]string{"sned", "--to", "x"}, exitUsage, "unknown command \"sned\" for \"switchboard\" (see --help)\n\nDid you mean this?\n\tsend", "-"},
		// A group of commands given a word it does not know is a usage
		// error, not its help and exit 0: a script's typo must fail.
		{[]string{"state", "sett", "k", "v"}, exitUsage, "unknown command \"sett\" for \"switchboard state\" (see --help)\n\nDid you mean this?\n\tget\n\tset", "-"},
		{[]string{"bulletin", "sett", "status", "paused", "--bogus"}, exitUsage, "Did you mean this?\n\tset", "-"},
		{[]string{"state"}, exitOK, "", "Usage:"},
		{[]string{"rules", "explain", "developer_agent"}, exitUsage, "takes 2 arguments", ""},
		{[]string{"read", "--next", "--as", "ghost"}, exitUsage, `"ghost" is not an agent of this team (the team: developer_agent, master_agent, operator, reviewer_agent, tester_agent) (check --as or SWITCHBOARD_AGENT)`, ""},
		{[]string{"send", "--to", "reviewer_agnet", "--title", "hi"}, exitUsage, `"reviewer_agnet" is not an agent of this team; did you mean reviewer_agent?`, "-"},
		{[]string{"inbox", "--as", "developr_agent"}, exitUsage, "did you mean developer_agent?", ""},
		{[]string{"rules", "explain", "developer_agent", "nobody"}, exitUsage, `"nobody" is not an agent of this team (the team:`, ""},
		{[]string{"hooks", "install", "--kind", "claude", "--agent", "nobody"}, exitUsage, "(check --agent)", ""},
		{[]string{"rules", "explain", "tester_agent", "reviewer_agent"}, exitRefused, "", "BLOCKED: tester_agent → reviewer_agent"},
		{[]string{"rules", "explain", "developer_agent", "reviewer_agent"}, exitOK, "", "allowed"},
		{[]string{"read"}, exitUsage, "say which message: give its id", ""},
		{[]string{"wait", "reviewer_agent"}, exitUsage, "reviewer_agent was not spawned at run time, so no task of yours waits for its answer", ""},
		{[]string{"bulletin", "set", "status", "on-fire"}, exitUsage, `"on-fire" is not a system status: it is one of normal, paused, degraded, blocked`, ""},
		{[]string{"state", "set", "k", "{x"}, exitUsage, `"{x" is not valid JSON`, ""},
		{[]string{"state", "set", "k", "2026-11-23"}, exitOK, "", `k = "2026-11-23"`},
		{[]string{"--version"}, exitOK, "", "switchboard "},
		// Bringing the team up is the person's and the overseers' to do, as
		// stopping it is: refused before anything is made.
		{[]string{"up", "-d", "--as", "developer_agent"}, exitRefused, "developer_agent may not bring the team up: only oversight agents (master_agent) and the person at the keyboard may (the attempt is logged); outside the team's panes, run `switchboard up --as operator`", "-"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tt.args, &streams{in: strings.NewReader(""), out: &out, errOut: &errOut})
			if code != tt.code || !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut.String(), tt.code, tt.stderr)
			}
			switch {
			case tt.stdout == "-" && out.Len() > 0:
				t.Errorf("stdout %q; want nothing", out.String())
			case tt.stdout != "-" && !strings.Contains(out.String(), tt.stdout):
				t.Errorf("stdout %q; want %q", out.String(), tt.stdout)
			}
		})
	}
}

// TestShowRefusalExitsThree covers exit 3 for show: a message between
// others, read by an agent without oversight.
func TestShowRefusalExitsThree(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SWITCHBOARD_ROOT", root)
	t.Setenv("SWITCHBOARD_AGENT", "")
	logLine := `{"seq":1,"time":"2026-11-22T08:57:00Z","status":"delivered","delivered":["reviewer_agent"],"message":{"id":"01a20514-554d-72a7-9a7e-8e2f152b5a77","timestamp":"2026-11-22T08:57:00Z","from":"developer_agent","to":["reviewer_agent"],"title":"private","priority":"normal","type":"request"}}` + "\n"
	logPath := filepath.Join(root, "mailboxes", "log", "messages.jsonl")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, []byte(logLine), 0o600); err != nil {
		t.Fatal(err)
	}
	for agent, want := range map[string]int{"tester_agent": exitRefused, "reviewer_agent": exitOK, "master_agent": exitOK, "operator": exitOK} {
		var out, errOut bytes.Buffer
		code := run([]string{"show", "1", "--as", agent}, &streams{in: strings.NewReader(""), out: &out, errOut: &errOut})
		if code != want {
			t.Errorf("show 1 as %s: exit %d (%s); want %d", agent, code, errOut.String(), want)
		}
		if leaked := strings.Contains(out.String(), "private"); leaked != (want == exitOK) {
			t.Errorf("show 1 as %s printed the message: %v", agent, leaked)
		}
	}
}

// TestAFullDiskSaysWhatToDo: an error of a full disk, however deep, ends
// with what to do.
func TestAFullDiskSaysWhatToDo(t *testing.T) {
	err := withHint(fmt.Errorf("queue message: %w", &os.PathError{Op: "write", Path: "/w/mailboxes/a/tmp/.tmp-1", Err: syscall.ENOSPC}))
	if want := "no space left on device; the disk is full: free some space and run the command again"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got %q; want it to end %q", err, want)
	}
}

// TestOneCodeForEachKindOfFailure: whichever command meets it, one kind of
// failure ends with one exit code, the one a script branches on.
func TestOneCodeForEachKindOfFailure(t *testing.T) {
	root := t.TempDir()
	if _, err := profile.WriteDefaultTeam(root, false); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SWITCHBOARD_AGENT", "")
	t.Setenv("SWITCHBOARD_ROOT", root)
	const logged = "01a20514-554d-72a7-9a7e-8e2f152b5a77"
	logLine := `{"seq":1,"time":"2026-11-22T08:57:00Z","status":"delivered","delivered":["reviewer_agent"],"message":{"id":"` + logged + `","timestamp":"2026-11-22T08:57:00Z","from":"developer_agent","to":["reviewer_agent"],"title":"private","priority":"normal","type":"request"}}` + "\n"
	logPath := filepath.Join(root, "mailboxes", "log", "messages.jsonl")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, []byte(logLine), 0o600); err != nil {
		t.Fatal(err)
	}
	kinds := []struct {
		kind  string
		code  int
		cases [][]string
	}{
		{"an unknown command or flag", exitUsage, [][]string{
			{"sned"},
			{"state", "sett", "k", "v"},
			{"up", "--sesion", "x"},
			{"spawn", "--profle", "reviewer_agent"},
		}},
		{"an argument missing or bad", exitUsage, [][]string{
			{"send", "--to", "reviewer_agent"},
			{"spawn"},
			{"rules", "explain", "developer_agent"},
			{"status", "--format", "nosuch"},
		}},
		{"no such agent", exitUsage, [][]string{
			{"send", "--to", "nobody_agent", "--title", "hi"},
			{"close", "nobody_agent"},
			{"interrupt", "nobody_agent", "--reason", "why"},
			{"spawn", "--profile", "reviewer_agent", "--parent", "nobody_agent"},
			{"inbox", "--as", "nobody_agent"},
		}},
		{"no such profile", exitUsage, [][]string{
			{"spawn", "--profile", "nosuch"},
			{"spawn", "--profile", "nosuch", "--task", "review it"},
		}},
		{"no such message", exitUsage, [][]string{
			{"read", "01a2ffff"},
			{"reply", logged, "--content", "yes"},
			{"show", "99"},
			{"show", "01a2ffff"},
		}},
		{"no such approval", exitUsage, [][]string{
			{"approvals", "revoke", "abcd"},
		}},
		{"refused by the rules, a right or a lock", exitRefused, [][]string{
			{"send", "--as", "tester_agent", "--to", "reviewer_agent", "--title", "hi"},
			{"rules", "explain", "tester_agent", "reviewer_agent"},
			{"show", "1", "--as", "tester_agent"},
			{"interrupt", "reviewer_agent", "--reason", "why", "--as", "tester_agent"},
		}},
		{"timed out", exitTimedOut, [][]string{
			{"ask", "--to", "master_agent", "--title", "Deploy?", "--timeout", "1s"},
		}},
		{"any other failure", exitError, [][]string{
			{"diff", "developer_agent"}, // the workspace is no git repository
			{"unlock", "nothing-held"},
		}},
	}
	for _, k := range kinds {
		for _, args := range k.cases {
			t.Run(k.kind+"/"+strings.Join(args, " "), func(t *testing.T) {
				var out, errOut bytes.Buffer
				code := run(args, &streams{in: strings.NewReader(""), out: &out, errOut: &errOut})
				if code != k.code {
					t.Errorf("exit %d (%s); want %d, the code of %s", code, strings.TrimSpace(errOut.String()), k.code, k.kind)
				}
			})
		}
	}
}
