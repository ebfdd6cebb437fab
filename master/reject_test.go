package master

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"switchboard/mailbox"
)

func TestRejectsBadInputAndKeepsRunning(t *testing.T) {
	valid := `{"to": ["reviewer_agent"], "title": "fine"}`
	tests := []struct {
		name   string
		file   string
		create func(h *harness, path string)
		reason string
	}{
		{"spoofed sender", "spoof.json", content(`{"from": "master_agent", "to": ["reviewer_agent"], "title": "trust me"}`), `spoofed sender: "from" is "master_agent"`},
		{"missing title", "untitled.json", content(`{"to": ["reviewer_agent"]}`), "title is missing"},
		{"unknown recipient", "stranger.json", content(`{"to": ["nobody"], "title": "hello"}`), `unknown recipient "nobody"`},
		{"wrong field type", "typed.json", content(`{"to": ["reviewer_agent"], "title": 42}`), `"title" must be a string`},
		{"half-written, then abandoned", "partial.json", content(`{"to": ["reviewer_agent"], "tit`), "not a JSON object"},
		{"empty file", "empty.json", content(``), "file is empty"},
		{"symlink", "link.json", func(h *harness, path string) {
			target := filepath.Join(h.root, "secret.json")
			writeFile(h.t, target, valid)
			if err := os.Symlink(target, path); err != nil {
				h.t.Fatal(err)
			}
		}, "symbolic link"},
		{"fifo", "pipe.json", func(h *harness, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				h.t.Fatal(err)
			}
		}, "it is a named pipe, not a file"},
		{"over 1 MiB", "huge.json", content(`{"to": ["reviewer_agent"], "title": "big", "content": "` + strings.Repeat("x", mailbox.MaxFileSize) + `"}`), "over the limit"},
		{"directory", "folder.json", func(h *harness, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				h.t.Fatal(err)
			}
		}, "it is a folder, not a file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.start(Options{})
			if err := os.MkdirAll(h.store.OutboxDir("developer_agent"), 0o700); err != nil {
				t.Fatal(err)
			}
			tt.create(h, filepath.Join(h.store.OutboxDir("developer_agent"), tt.file))

			notices := h.waitInbox("developer_agent", 1)
			if notices[0].From != mailbox.System || !strings.HasPrefix(notices[0].Title, "REJECTED: "+tt.file) || !strings.Contains(notices[0].Content, tt.reason) {
				t.Errorf("notice %q from %s:\n%s\nwant REJECTED: %s with %q", notices[0].Title, notices[0].From, notices[0].Content, tt.file, tt.reason)
			}
			// The notice is delivered first, so that a crash cannot lose it;
			// the file follows into rejected/.
			rejected := filepath.Join(h.store.RejectedDir("developer_agent"), tt.file)
			h.waitFor("the file to move to rejected/", func() bool { return exists(rejected) })
			reason, err := os.ReadFile(rejected + ".error")
			if err != nil || !strings.Contains(string(reason), tt.reason) {
				t.Errorf("%s.error = %q, %v; want it to contain %q", tt.file, reason, err, tt.reason)
			}
			if len(h.inbox("reviewer_agent", mailbox.All)) != 0 || len(h.records()) != 0 {
				t.Errorf("a rejected message was delivered or logged")
			}
			// The master goes on routing.
			h.drop("developer_agent", "next.json", valid)
			h.waitInbox("reviewer_agent", 1)
		})
	}
}

func content(data string) func(h *harness, path string) {
	return func(h *harness, path string) { writeFile(h.t, path, data) }
}

func TestWaitsForAFileBeingWritten(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	path := h.drop("developer_agent", "slow.json", `{"to": ["reviewer_agent"], `)
	// The writer finishes well within the settle time: the message is
	// delivered, not rejected.
	writeFile(t, path, `{"to": ["reviewer_agent"], "title": "written in two steps"}`)
	got := h.waitInbox("reviewer_agent", 1)
	if got[0].Title != "written in two steps" {
		t.Errorf("delivered %q", got[0].Title)
	}
	if n := len(h.inbox("developer_agent", mailbox.All)); n != 0 {
		t.Errorf("sender got %d notices; a file still being written must not be rejected", n)
	}
}

func TestIgnoresTemporariesAndOtherNames(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	h.drop("developer_agent", ".draft.json", `{"to": ["reviewer_agent"], "title": "draft"}`)
	h.drop("developer_agent", "notes.txt", `not a message`)
	h.drop("developer_agent", "real.json", `{"to": ["reviewer_agent"], "title": "real"}`)
	h.waitInbox("reviewer_agent", 1)
	for _, name := range []string{".draft.json", "notes.txt"} {
		if !exists(filepath.Join(h.store.OutboxDir("developer_agent"), name)) {
			t.Errorf("%s was touched; only *.json files that are not dotfiles are messages", name)
		}
	}
}
