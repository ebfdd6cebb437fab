package clientinbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/internal/clientinbox"
	"switchboard/internal/testkit/fakesession"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestSendAuthenticatesAndHandsOverOneUserMessage(t *testing.T) {
	fake := fakesession.New(t, "s-1", "%0")
	rec := clientinbox.Record{SessionID: "s-1", ConfigDir: fake.ConfigDir}
	s, err := rec.Session()
	if err != nil {
		t.Fatal(err)
	}
	if !s.InPane("%0") || s.InPane("%1") || s.InPane("") {
		t.Errorf("the session in %%0 says it runs in %q", s.Tmux)
	}
	if err := s.Send(context.Background(), "reviewer_agent", "hello \"there\"\nsecond line"); err != nil {
		t.Fatal(err)
	}
	sent := fake.Sent() // the session read it all before the send returned
	if len(sent) != 1 {
		t.Fatalf("%d connections; want one", len(sent))
	}
	got := sent[0]
	if len(got) != 2 {
		t.Fatalf("the session read %d lines; want an auth line and a message: %q", len(got), got)
	}
	var auth struct{ Type, Token string }
	json.Unmarshal([]byte(got[0]), &auth)
	if auth.Type != "auth" || auth.Token != fakesession.Token {
		t.Errorf("first line %s; want the session's own token", got[0])
	}
	var msg struct {
		Type, From string
		Message    struct{ Role, Content string }
	}
	json.Unmarshal([]byte(got[1]), &msg)
	if msg.Type != "user" || msg.From != "reviewer_agent" || msg.Message.Role != "user" || msg.Message.Content != "hello \"there\"\nsecond line" {
		t.Errorf("second line %s", got[1])
	}
}

func TestASessionIsFoundByItsIDAlone(t *testing.T) {
	dir := fakesession.New(t, "s-1", "%0").ConfigDir
	if _, err := clientinbox.Find(dir, "s-2"); !errors.Is(err, clientinbox.ErrNoSession) {
		t.Errorf("another session's id found %v; want ErrNoSession", err)
	}
	// An entry left by a process that ended names no live session.
	entry, _ := json.Marshal(map[string]any{"pid": 999999999, "sessionId": "s-3", "messagingSocketPath": "/nonexistent.sock"})
	write(t, filepath.Join(dir, "sessions", "999999999.json"), string(entry))
	if _, err := clientinbox.Find(dir, "s-3"); !errors.Is(err, clientinbox.ErrNoSession) {
		t.Errorf("the session of an ended process found %v; want ErrNoSession", err)
	}
	// An entry whose file names another pid is not believed.
	forged, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "sessionId": "s-4"})
	write(t, filepath.Join(dir, "sessions", "12345.json"), string(forged))
	if _, err := clientinbox.Find(dir, "s-4"); !errors.Is(err, clientinbox.ErrNoSession) {
		t.Errorf("an entry under another pid's name found %v; want ErrNoSession", err)
	}
}

func TestASocketGoneIsNotTaken(t *testing.T) {
	s, err := clientinbox.Find(fakesession.New(t, "s-1", "%0").ConfigDir, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(s.Socket)
	if err := s.Send(context.Background(), "", "hello"); !errors.Is(err, clientinbox.ErrNotTaken) {
		t.Errorf("send to a removed socket: %v; want ErrNotTaken", err)
	}
}

func TestTheTranscriptHoldsAMessageOnceItIsInTheConversation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	tr := clientinbox.Transcript{Path: path}
	if held, err := tr.Holds(0, []string{"id-1"}); held || err != nil {
		t.Fatalf("a transcript not written yet holds it: %v %v", held, err)
	}
	write(t, path, `{"type":"user","message":{"content":"old id-1"},"origin":{"kind":"peer"}}`+"\n")
	from := tr.End()
	// Queued, not yet in the conversation: the queue's own lines.
	appendLine(t, path, `{"type":"queue-operation","operation":"enqueue","content":"new id-1"}`)
	if held, _ := tr.Holds(from, []string{"id-1"}); held {
		t.Error("a message only queued counts as in the conversation")
	}
	// Typed by the user, not from another session.
	appendLine(t, path, `{"type":"user","message":{"content":"id-1"}}`)
	if held, _ := tr.Holds(from, []string{"id-1"}); held {
		t.Error("a message of the user's counts as handed over")
	}
	// Absorbed in the middle of a turn.
	appendLine(t, path, `{"attachment":{"type":"queued_command","prompt":"id-1 and id-2","origin":{"kind":"peer","from":"switchboard"}},"type":"attachment"}`)
	if held, _ := tr.Holds(from, []string{"id-1", "id-2"}); !held {
		t.Error("a message absorbed mid-turn is not seen")
	}
	if held, _ := tr.Holds(from, []string{"id-1", "id-3"}); held {
		t.Error("a message not sent is seen")
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.TrimSpace(line) + "\n"); err != nil {
		t.Fatal(err)
	}
}

func TestConfigDirFollowsTheClientsEnvironment(t *testing.T) {
	if got := clientinbox.ConfigDir([]string{"HOME=/home/a", "CLAUDE_CONFIG_DIR=/cfg"}); got != "/cfg" {
		t.Errorf("with CLAUDE_CONFIG_DIR: %q", got)
	}
	if got := clientinbox.ConfigDir([]string{"HOME=/home/a"}); got != "/home/a/.claude" {
		t.Errorf("without: %q", got)
	}
}
