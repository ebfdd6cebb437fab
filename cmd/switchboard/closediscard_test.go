package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/lifecycle/worktree"
)

// commitIn commits a new file in an agent's tree, as the agent would.
func commitIn(t *testing.T, tree, file string) {
	t.Helper()
	writeTestFile(t, filepath.Join(tree, file), file+"\n")
	gitIn(t, tree, "add", file)
	gitIn(t, tree, "commit", "-q", "-m", "Add "+file)
}

// TestCloseDiscardAsksBeforeItThrowsWorkAway: close --discard of a helper
// whose branch holds commits nothing else does closes nothing where no one
// can answer, and says what would be lost and how to go ahead; the way it
// says works. At a terminal it asks for yes, and anything else keeps the
// work. A tree with nothing of its own goes unasked, as before.
func TestCloseDiscardAsksBeforeItThrowsWorkAway(t *testing.T) {
	tm := newTreeTeam(t)
	tm.must("up", "-d", "--no-console", "--socket", tm.socket)

	// A script: refused, exit 3, nothing closed, and the way on.
	helper, tree := tm.spawnHelper()
	commitIn(t, tree, "retry.go")
	commitIn(t, tree, "retry_test.go")
	out, code := tm.switchboard("close", helper, "--discard")
	if code != exitRefused {
		t.Fatalf("close --discard of unmerged commits, not at a terminal: exit %d, want %d\n%s", code, exitRefused, out)
	}
	for _, want := range []string{"nothing was closed", "holds 2 commits not merged anywhere", "(branch switchboard/" + helper + ")", "Add retry_test.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(tree, "retry.go")); err != nil {
		t.Errorf("the refused discard lost the work: %v", err)
	}
	if agents := tm.must("agents"); !strings.Contains(agents, helper) {
		t.Errorf("the refused discard closed %s:\n%s", helper, agents)
	}
	if merge := tm.hint(out, "merge "+helper); merge != "switchboard merge "+helper {
		t.Errorf("the hint to keep the work is %q", merge)
	}
	out, code = tm.runHint(tm.hint(out, "--yes"))
	if code != 0 || !strings.Contains(out, "closed "+helper) || !strings.Contains(out, "lost commit:") {
		t.Fatalf("close --discard --yes: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(tree); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the tree stayed after --yes: %v", err)
	}

	// A person at a terminal: asked, and only yes throws the work away.
	helper, tree = tm.spawnHelper()
	commitIn(t, tree, "parser.go")
	t.Setenv("SWITCHBOARD_ROOT", tm.root)
	t.Setenv("SWITCHBOARD_AGENT", "")
	t.Setenv("TMUX", "")
	atTerminal := func(answer string) (string, int) {
		var out, errOut bytes.Buffer
		code := run([]string{"close", helper, "--discard"}, &streams{in: strings.NewReader(answer), out: &out, errOut: &errOut, terminal: true})
		return errOut.String() + out.String(), code
	}
	out, code = atTerminal("no\n")
	if code != exitRefused || !strings.Contains(out, "holds 1 commit not merged anywhere") || !strings.Contains(out, "type yes:") || !strings.Contains(out, "nothing was closed") {
		t.Errorf("answered no at the terminal: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(tree, "parser.go")); err != nil {
		t.Errorf("answered no, the work is gone: %v", err)
	}
	out, code = atTerminal("yes\n")
	if code != 0 || !strings.Contains(out, "closed "+helper) {
		t.Errorf("answered yes at the terminal: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(tree); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("answered yes, the tree stayed: %v", err)
	}

	// Nothing of its own: no question, as before.
	helper, tree = tm.spawnHelper()
	out, code = tm.switchboard("close", helper, "--discard")
	if code != 0 || !strings.Contains(out, "removed the worktree of "+helper) {
		t.Errorf("close --discard of a clean tree: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(tree); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a clean tree stayed: %v", err)
	}

	// --yes alone answers no question.
	if out, code := tm.switchboard("close", helper, "--yes"); code != exitUsage || !strings.Contains(out, "--yes answers the question --discard asks") {
		t.Errorf("close --yes without --discard: exit %d\n%s", code, out)
	}
}

// TestTheDiscardQuestionTakesOnlyYes: at a terminal only yes, however the
// line ends, lets close --discard go on; anything else, or no answer at
// all, is exit 3. Where no one can answer, it is refused unasked.
func TestTheDiscardQuestionTakesOnlyYes(t *testing.T) {
	lost := []*worktree.UnsavedError{{
		Tree:    worktree.Tree{Agent: "reviewer_agent-1", Path: "/repo/.switchboard/worktrees/reviewer_agent-1", Branch: "switchboard/reviewer_agent-1"},
		Unsaved: worktree.Unsaved{Commits: []string{"77f73cc Add parser.go", "1a2b3c4 Add lexer.go"}},
	}}
	for _, tt := range []struct {
		terminal bool
		answer   string
		code     int
	}{
		{true, "yes\n", exitOK},
		{true, "  yes  \n", exitOK},
		{true, "yes", exitOK}, // input ends without a newline
		{true, "y\n", exitRefused},
		{true, "YES please\n", exitRefused},
		{true, "", exitRefused},
		{false, "yes\n", exitRefused}, // a script's input is no answer
	} {
		var errOut bytes.Buffer
		err := confirmDiscard(&streams{in: strings.NewReader(tt.answer), errOut: &errOut, terminal: tt.terminal}, "reviewer_agent-1", lost)
		if code := exitCode(err); code != tt.code {
			t.Errorf("terminal %v, answer %q: exit %d (%v); want %d", tt.terminal, tt.answer, code, err, tt.code)
		}
		said := errOut.String()
		if err != nil {
			said += err.Error()
		}
		if !strings.Contains(said, "holds 2 commits not merged anywhere") || !strings.Contains(said, "switchboard/reviewer_agent-1") {
			t.Errorf("terminal %v, answer %q: what would be lost is not said: %s", tt.terminal, tt.answer, said)
		}
	}
	if err := confirmDiscard(&streams{in: strings.NewReader("")}, "reviewer_agent-1", nil); err != nil {
		t.Errorf("nothing to lose, and still asked: %v", err)
	}
}
