package realclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's test command installs the clients: a newcomer is sent to
// its Development section, which says how much it downloads and how to
// skip it.
func TestREADMESaysWhatTheTestsDownload(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const command = "go test -race ./..."
	_, after, ok := strings.Cut(string(readme), command)
	if !ok {
		t.Fatalf("the README gives no %q: update this test", command)
	}
	if line, _, _ := strings.Cut(after, "\n"); !strings.Contains(line, "see Development") {
		t.Errorf("the README's first %q does not send the reader to Development: %q", command, line)
	}
	_, development, ok := strings.Cut(string(readme), "\n## Development\n")
	if !ok {
		t.Fatal("the README has no Development section: update this test")
	}
	for _, want := range []string{command, "750 MB", OptOut + "=1 " + command} {
		if !strings.Contains(development, want) {
			t.Errorf("the README's Development section does not say %q:\n%s", want, development)
		}
	}
}
