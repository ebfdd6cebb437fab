package main

import (
	"errors"
	"fmt"
	"syscall"

	"switchboard/desk"
	"switchboard/internal/program"
	"switchboard/internal/tmux"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/master"
	"switchboard/profile"
	"switchboard/rules"
	"switchboard/rules/approvals"
	"switchboard/workspace"
)

// Exit codes, the same for every command of every program (package
// program): one kind of failure, one code.
const (
	exitOK       = program.ExitOK
	exitError    = program.ExitError
	exitUsage    = program.ExitUsage
	exitRefused  = program.ExitRefused
	exitTimedOut = program.ExitTimedOut
)

// usageError is a mistake in the command line.
func usageError(format string, args ...any) error { return program.Usage(format, args...) }

// errSaid ends a command whose output has said all there is.
var errSaid = program.ErrSaid

func exitWith(code int) error { return program.Exit(code) }

func refusedError(err error) error {
	return &program.CodedError{Code: exitRefused, Err: err}
}

func timedOutError(err error) error {
	return &program.CodedError{Code: exitTimedOut, Err: err}
}

// namesNothing are the libraries' errors of a name or an id, given on the
// command line, that names nothing the team has: a mistake in the command
// line, as a misspelt flag is, whichever command it was given to.
var namesNothing = []error{
	desk.ErrNoProfile,
	mailbox.ErrNotFound,
	mailbox.ErrAmbiguousID,
	desk.ErrNoSuchSeq,
	desk.ErrNoSuchID,
	approvals.ErrNotFound,
	approvals.ErrAmbiguous,
}

// exitCode decides the process's exit code from the error a command returned.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if code, coded := program.CodeOf(err); coded {
		return code
	}
	var unknown *desk.UnknownAgentError
	if errors.As(err, &unknown) {
		return exitUsage
	}
	for _, e := range namesNothing {
		if errors.Is(err, e) {
			return exitUsage
		}
	}
	return exitError
}

// hints say what to do next after a library's error, in the words of this
// command line: the libraries name no flags.
var hints = []struct {
	err  error
	hint string
}{
	{lifecycle.ErrExists, "pick another --name"},
	{lifecycle.ErrNotUp, "start it with `switchboard up`"},
	{lifecycle.ErrUpBusy, "wait for it to finish, then run `switchboard up` again"},
	{tmux.ErrNoServer, "start the team with `switchboard up`"},
	{tmux.ErrServerExited, "the team's tmux server stopped: start the team again with `switchboard up`"},
	{rules.ErrNoRules, "run `switchboard init` to write the default team"},
	{profile.ErrWorkspaceExists, "pass --force to overwrite it"},
	{workspace.ErrNotFound, "run `switchboard init` there (or `switchboard up --init`, which starts it too), or pass --root"},
	{master.ErrNoInotify, "pass --poll 1s where inotify is unavailable"},
	{mailbox.ErrNotFound, "`switchboard inbox --all` lists your messages"},
	{desk.ErrNoMaster, "start the team with `switchboard up`, or its master alone with `switchboard master`"},
	{desk.ErrMasterSilent, "its window says why (`switchboard attach`); `switchboard doctor` checks the hub"},
	{desk.ErrHubAway, "`switchboard doctor` says whether this host reaches it"},
	{workspace.ErrMasterRunning, "one routes each workspace: watch it with `switchboard log --follow`, or stop it (and the team in tmux) with `switchboard down`"},
	{syscall.ENOSPC, "the disk is full: free some space and run the command again"},
	{syscall.EDQUOT, "your disk quota is used up: free some space and run the command again"},
	{syscall.ENOTDIR, "a file stands where a folder should be: move it away and run the command again"},
}

// withHint adds to err what to do next, when a hint knows.
func withHint(err error) error {
	for _, h := range hints {
		if errors.Is(err, h.err) {
			return fmt.Errorf("%w; %s", err, h.hint)
		}
	}
	return err
}
