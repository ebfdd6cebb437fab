package program

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestRunTellsEachFailureOnceWithItsCode: what a user sees on stderr, and
// the exit code, for each kind of ending of a command.
func TestRunTellsEachFailureOnceWithItsCode(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []string
		err    error
		code   int
		stderr string
	}{
		{"done", []string{"do"}, nil, ExitOK, ""},
		{"an unknown flag", []string{"do", "--nope"}, nil, ExitUsage, "switchboard tool do: unknown flag: --nope; switchboard tool do --help says how"},
		{"a word where none is taken", []string{"do", "extra"}, nil, ExitUsage, `switchboard tool do: it takes no arguments, only flags (got ["extra"]); switchboard tool do --help says how`},
		{"a mistake in the command line", []string{"do"}, Usage("give --x"), ExitUsage, "switchboard tool do: give --x"},
		{"refused", []string{"do"}, &CodedError{Code: ExitRefused, Err: errors.New("a lock holds it")}, ExitRefused, "switchboard tool do: a lock holds it"},
		{"any other failure", []string{"do"}, errors.New("the disk is full"), ExitError, "switchboard tool do: the disk is full"},
		{"said on the output already", []string{"do"}, Exit(ExitTimedOut), ExitTimedOut, ""},
		{"shown as the user knows it", []string{"known"}, errors.New("no hub"), ExitError, "switchboard master: no hub"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := &cobra.Command{Use: "tool"}
			run := func(*cobra.Command, []string) error { return tt.err }
			known := &cobra.Command{Use: "known", Args: NoArgs, RunE: run}
			ShownAs(known, "switchboard master")
			root.AddCommand(&cobra.Command{Use: "do", Args: NoArgs, RunE: run}, known)
			var out, errOut bytes.Buffer
			code := Run(context.Background(), root, "switchboard", tt.args, &out, &errOut)
			if code != tt.code || strings.TrimSpace(errOut.String()) != tt.stderr {
				t.Errorf("exit %d, stderr %q; want exit %d, stderr %q", code, errOut.String(), tt.code, tt.stderr)
			}
		})
	}
}

// TestEveryProgramHasItsVersionBothWays: --version and version print the
// same one line.
func TestEveryProgramHasItsVersionBothWays(t *testing.T) {
	var lines []string
	for _, args := range [][]string{{"--version"}, {"version"}} {
		root := &cobra.Command{Use: "tool", RunE: func(*cobra.Command, []string) error { return nil }}
		var out, errOut bytes.Buffer
		WithVersion(root, "switchboard-tool", &out)
		if code := Run(context.Background(), root, "", args, &out, &errOut); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		lines = append(lines, out.String())
	}
	if lines[0] != lines[1] || !strings.HasPrefix(lines[0], "switchboard-tool ") || strings.Count(lines[0], "\n") != 1 {
		t.Errorf("--version printed %q, version %q; want the same one line, naming switchboard-tool", lines[0], lines[1])
	}
}
