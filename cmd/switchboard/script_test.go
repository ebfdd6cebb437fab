package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"switchboard/mailbox"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"switchboard": func() { os.Exit(run(os.Args[1:], systemStreams())) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: the real
// binary, a real master in the background, real files and fsnotify.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("SWITCHBOARD_AGENT", "")
			env.Setenv("SWITCHBOARD_ROOT", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitlog":  cmdWaitLog,
			"waitfile": cmdWaitFile,
			"mkfifo":   cmdMkfifo,
			"bigfile":  cmdBigFile,
		},
	})
}

// waitFor polls cond until it holds or ten seconds pass.
func waitFor(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// waitlog N: wait until the audit log of the workspace in $WORK holds N records.
func cmdWaitLog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitlog N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	path := mailbox.NewStore(ts.Getenv("WORK")).LogPath()
	var n int
	if !waitFor(func() bool {
		recs, _, _ := mailbox.ReadLog(path, 0)
		n = len(recs)
		return n >= want
	}) {
		ts.Fatalf("the log has %d records after 10s; want %d", n, want)
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
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(body), 0o600))
}
