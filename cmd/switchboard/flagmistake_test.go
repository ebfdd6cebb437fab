package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestAMistypedFlagIsGivenTheNearestFlag: a long flag a command does not
// know names the one of that command it was likely meant to be, its
// parents' flags included, and is a usage error.
func TestAMistypedFlagIsGivenTheNearestFlag(t *testing.T) {
	t.Setenv("SWITCHBOARD_ROOT", t.TempDir())
	t.Setenv("SWITCHBOARD_AGENT", "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"up", "--sesion", "x"}, "switchboard: unknown flag: --sesion (did you mean --session?)\n"},
		{[]string{"send", "--to", "a", "--tilte", "hi"}, "switchboard: unknown flag: --tilte (did you mean --title?)\n"},
		{[]string{"rules", "check", "--jsno"}, "switchboard: unknown flag: --jsno (did you mean --json?)\n"},
		{[]string{"close", "a", "--discrad"}, "switchboard: unknown flag: --discrad (did you mean --discard?)\n"},
		{[]string{"up", "--sesion=x"}, "(did you mean --session?)"},
		// Nothing near: no guess, the help.
		{[]string{"up", "--verbose"}, "switchboard: unknown flag: --verbose (see --help)\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tt.args, &streams{in: strings.NewReader(""), out: &out, errOut: &errOut})
			if code != exitUsage || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut.String(), exitUsage, tt.want)
			}
		})
	}
}
