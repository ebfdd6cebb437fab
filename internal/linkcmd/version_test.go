package linkcmd

import (
	"bytes"
	"strings"
	"testing"

	"switchboard/internal/release"
)

// TestVersion: switchboard-link --version says its release and build in
// one line.
func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main([]string{"--version"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	name, info, ok := release.Parse(strings.TrimSuffix(out.String(), "\n"))
	if !ok || name != "switchboard-link" || info.Number != release.Number {
		t.Errorf("switchboard-link --version printed %q; want switchboard-link %s (commit ..., ...)", out.String(), release.Number)
	}
}
