package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallHintRunsFromHere: the command that installs every program
// runs as printed, from a checkout of the source and from anywhere else.
func TestInstallHintRunsFromHere(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	if hint, want := installHint(), "with `go install ./cmd/...`"; !strings.HasSuffix(hint, want) {
		t.Errorf("in the checkout: %q; want it to end %q", hint, want)
	}
	t.Chdir(filepath.Join(root, "cmd"))
	if hint, want := installHint(), "with `go -C "+root+" install ./cmd/...`"; !strings.HasSuffix(hint, want) {
		t.Errorf("below the checkout: %q; want it to end %q", hint, want)
	}
	// Elsewhere, the checkout this program was built in.
	t.Chdir(t.TempDir())
	if hint, want := installHint(), "with `go -C "+root+" install ./cmd/...`"; !strings.HasSuffix(hint, want) {
		t.Errorf("outside the checkout: %q; want it to end %q", hint, want)
	}
}

func TestBinOf(t *testing.T) {
	for _, tt := range []struct{ gobin, gopath, want string }{
		{"/opt/go/bin", "/home/ann/go", "/opt/go/bin"},
		{"", "/home/ann/go", "/home/ann/go/bin"},
		{"", "/home/ann/go" + string(filepath.ListSeparator) + "/srv/go", "/home/ann/go/bin"},
		{"", "", ""},
	} {
		if got := binOf(tt.gobin, tt.gopath); got != tt.want {
			t.Errorf("binOf(%q, %q) = %q; want %q", tt.gobin, tt.gopath, got, tt.want)
		}
	}
}
