package realclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's first test command installs the clients: a newcomer is told
// there, before running it, how much it downloads and how to skip it.
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
	// Beside the command: before the next paragraph ends.
	beside, _, _ := strings.Cut(after, "\n\n")
	for _, want := range []string{"750 MB", OptOut + "=1 " + command} {
		if !strings.Contains(beside, want) {
			t.Errorf("the README's first %q is not followed by %q, in:\n%s", command, want, beside)
		}
	}
}
