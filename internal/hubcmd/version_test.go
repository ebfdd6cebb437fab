package hubcmd

import (
	"bytes"
	"strings"
	"testing"

	"switchboard/internal/release"
)

// TestVersion: switchboard-hub --version says its release and build in
// one line, and starts no hub.
func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main([]string{"--version"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	name, info, ok := release.Parse(strings.TrimSuffix(out.String(), "\n"))
	if !ok || name != "switchboard-hub" || info.Number != release.Number {
		t.Errorf("switchboard-hub --version printed %q; want switchboard-hub %s (commit ..., ...)", out.String(), release.Number)
	}
}
