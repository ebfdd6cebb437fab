package profile

import (
	"testing"

	"switchboard/internal/testkit/realclient"
)

// TestTheClientsTestedAreTheOnesDoctorNames: the tests install and run the
// very npm packages that doctor tells a user to install for each kind.
func TestTheClientsTestedAreTheOnesDoctorNames(t *testing.T) {
	for _, c := range []realclient.Client{realclient.ClaudeCode, realclient.Codex, realclient.GeminiCLI} {
		if got := NpmPackage(c.Kind); got != c.Package {
			t.Errorf("%s: the tests install %s, doctor names %q for kind %s", c.Name, c.Package, got, c.Kind)
		}
	}
}
