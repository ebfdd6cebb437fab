package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestBenchNamesTheFlagThatIsOutOfRange: each number bench cannot take is
// refused before anything is measured, exit 2, naming its flag.
func TestBenchNamesTheFlagThatIsOutOfRange(t *testing.T) {
	for _, bad := range [][2]string{
		{"agents", "1"}, {"agents", "1000"}, {"rate", "0"}, {"duration", "0s"}, {"burst", "0"}, {"idle", "-1s"},
		{"hooks-unread", "0"}, {"hooks-runs", "0"}, {"team-agents", "0"}, {"team-idle", "0s"},
		{"soak-agents", "2"}, {"soak-rate", "0"}, {"soak-duration", "0s"}, {"soak-sample", "0s"},
		{"history-records", "0"}, {"history-inbox-files", "-1"}, {"history-agents", "1"}, {"history-rest", "0s"},
		{"worktree-files", "0"}, {"memory-messages", "4"},
		{"scale-hosts", "1"}, {"scale-agents", "2"}, {"scale-rest", "0s"}, {"scale-steady", "0s"}, {"scale-burst", "0"}, {"scale-volume", "0"},
		{"scale-hubs", "four"}, {"only", "everything"},
	} {
		var out, errOut bytes.Buffer
		code := run([]string{"bench", "--" + bad[0], bad[1]}, &streams{in: strings.NewReader(""), out: &out, errOut: &errOut})
		if want := "switchboard: --" + bad[0] + " "; code != exitUsage || !strings.HasPrefix(errOut.String(), want) {
			t.Errorf("bench --%s %s: exit %d, %q; want exit %d, %q...", bad[0], bad[1], code, errOut.String(), exitUsage, want)
		}
	}
}
