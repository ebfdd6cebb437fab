package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"switchboard/internal/watch"
	"switchboard/mailbox"

	"switchboard/cmd/switchboard-hub/hubcmd"
	"switchboard/cmd/switchboard-link/linkcmd"
)

func TestMain(m *testing.M) {
	// The switchboard these tests run is this test binary; under -race it
	// would sleep a second as it exits, in every command and every hook.
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	testscript.Main(configHome{m}, map[string]func(){
		"switchboard":      func() { os.Exit(run(os.Args[1:], systemStreams())) },
		"switchboard-hub":  func() { os.Exit(hubcmd.Main(os.Args[1:], os.Stdout, os.Stderr)) },
		"switchboard-link": func() { os.Exit(linkcmd.Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// configHome runs the tests with a config folder of their own, which every
// process they start inherits: a master joining a hub keeps its settings
// there, never in the user's.
type configHome struct{ m *testing.M }

func (c configHome) Run() int {
	dir, err := os.MkdirTemp("", "switchboard-test-config-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_CONFIG_HOME", dir)
	return c.m.Run()
}

// TestScripts runs the end-to-end scripts in testdata/script: the real
// binary, a real master in the background, real files and fsnotify.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("SWITCHBOARD_AGENT", "")
			env.Setenv("SWITCHBOARD_ROOT", "")
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitlog":  cmdWaitLog,
			"waitfile": cmdWaitFile,
			"mkfifo":   cmdMkfifo,
			"bigfile":  cmdBigFile,
			"latestid": cmdLatestID,
			"waitmail": cmdWaitMail,
		},
	})
}

// waitFor polls cond until it holds or ten seconds pass.
func waitFor(cond func() bool) bool {
	return watch.Until(context.Background(), 10*time.Millisecond, 10*time.Second, cond)
}

// waitlog N: wait until the audit log of the workspace in $WORK holds N
// records, and their copies are in the recipients' inboxes (the log is
// written first).
func cmdWaitLog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitlog N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	store := mailbox.NewStore(ts.Getenv("WORK"))
	var n int
	if !waitFor(func() bool {
		recs, _, _ := mailbox.ReadLog(store.LogPath(), 0)
		n = len(recs)
		if n < want {
			return false
		}
		for _, rec := range recs[:want] {
			for _, to := range rec.Delivered {
				if _, err := store.Find(to, rec.Message.ID); err != nil {
					return false
				}
			}
		}
		return true
	}) {
		ts.Fatalf("the log has %d records after 10s, or their copies are not all delivered; want %d", n, want)
	}
}

// latestid AGENT VAR: set VAR to the id of the newest unread message of
// AGENT in the workspace in $WORK, and VAR_CORR to its correlation id.
func cmdLatestID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: latestid AGENT VAR")
	}
	entries, err := mailbox.NewStore(ts.Getenv("WORK")).List(args[0], mailbox.Unread)
	ts.Check(err)
	if len(entries) == 0 {
		ts.Fatalf("%s has no unread message", args[0])
	}
	m, err := mailbox.Load(entries[len(entries)-1].Path)
	ts.Check(err)
	ts.Setenv(args[1], m.ID)
	ts.Setenv(args[1]+"_CORR", m.CorrelationID)
}

// waitmail AGENT N: wait until AGENT of the workspace in $WORK has N
// messages, read or not; more than N is a failure (a copy delivered twice).
func cmdWaitMail(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitmail AGENT N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	store := mailbox.NewStore(ts.Getenv("WORK"))
	var n int
	if !waitFor(func() bool {
		entries, _ := store.List(args[0], mailbox.All)
		n = len(entries)
		return n >= want
	}) {
		ts.Fatalf("%s has %d messages after 10s; want %d", args[0], n, want)
	}
	if n > want {
		ts.Fatalf("%s has %d messages; want exactly %d", args[0], n, want)
	}
}

// waitfile PATH: wait until PATH exists (a pattern with * matches any file).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: [!] waitfile PATH")
	}
	pattern := ts.MkAbs(args[0])
	present := func() bool {
		matches, _ := filepath.Glob(pattern)
		return len(matches) > 0
	}
	if !waitFor(func() bool { return present() != neg }) {
		ts.Fatalf("after 10s, %s %s", args[0], map[bool]string{true: "still exists", false: "does not exist"}[neg])
	}
}

// mkfifo PATH: make a named pipe.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o600))
}

// bigfile PATH BYTES: write a message file of about BYTES bytes.
func cmdBigFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: bigfile PATH BYTES")
	}
	size, err := strconv.Atoi(args[1])
	ts.Check(err)
	body := fmt.Sprintf(`{"to": ["reviewer_agent"], "title": "big", "content": "%s"}`, strings.Repeat("x", size))
	// Written aside and renamed in, so that the master never sees it half
	// written: the scripts test the size limit, not the settle time.
	path := ts.MkAbs(args[0])
	tmp := filepath.Join(filepath.Dir(path), ".bigfile.tmp")
	ts.Check(os.WriteFile(tmp, []byte(body), 0o600))
	ts.Check(os.Rename(tmp, path))
}
