package errand

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/mailbox"
)

// TestAnErrandGoesFromTheOutboxToItsAnswer: posted, listed apart from the
// messages, read as its outbox owner's, answered beside the sent messages.
func TestAnErrandGoesFromTheOutboxToItsAnswer(t *testing.T) {
	s, b := testBox(t)
	id, err := b.Post("dev", &Errand{Kind: SetState, Key: "release", Value: json.RawMessage(`"2.1"`)})
	if err != nil {
		t.Fatal(err)
	}
	messages, errands, err := s.Outbox("dev")
	if err != nil || len(messages) != 0 || len(errands) != 1 || mailbox.ErrandID(errands[0]) != id {
		t.Fatalf("Outbox = %q, %q, %v; want the errand %s alone, as an errand", messages, errands, err, id)
	}
	if pending, _ := s.Pending("dev"); len(pending) != 0 {
		t.Errorf("Pending lists the errand as a message: %q", pending)
	}
	e, err := b.Open("dev", errands[0])
	if err != nil || e.From != "dev" || e.Kind != SetState || string(e.Value) != `"2.1"` {
		t.Fatalf("Open = %+v, %v; want dev's set-state", e, err)
	}
	if _, ok, err := b.ReadAnswer("dev", id); ok || err != nil {
		t.Fatalf("an answer before the master wrote one: %v, %v", ok, err)
	}
	if err := b.Reply("dev", id, Answer{Refused: RefusedHeld, Holder: "tester", Host: "gpu"}); err != nil {
		t.Fatal(err)
	}
	a, ok, err := b.ReadAnswer("dev", id)
	if err != nil || !ok || a.Refused != RefusedHeld || a.Holder != "tester" {
		t.Errorf("ReadAnswer = %+v, %v, %v", a, ok, err)
	}
	if fi, err := os.Stat(filepath.Join(s.SentDir("dev"), id+".answer")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the answer: %v; want a private file in sent/", err)
	}
	b.SweepAnswers("dev", time.Now().Add(-time.Minute))
	if _, ok, _ := b.ReadAnswer("dev", id); !ok {
		t.Error("a fresh answer was swept")
	}
	b.SweepAnswers("dev", time.Now().Add(time.Minute))
	if _, ok, _ := b.ReadAnswer("dev", id); ok {
		t.Error("an old answer was not swept")
	}
	if !b.Withdraw("dev", id) || b.Withdraw("dev", id) {
		t.Error("Withdraw does not say whether the errand was there")
	}
}

// TestABadErrandIsRefusedWithItsReason: whatever an agent writes by hand
// into its outbox as an errand, the master reads a bounded amount of it and
// says why it will not do it.
func TestABadErrandIsRefusedWithItsReason(t *testing.T) {
	s, b := testBox(t)
	huge := `{"kind":"set-state","key":"k","value":"` + strings.Repeat("x", MaxSize) + `"}`
	for _, c := range []struct{ name, content, want string }{
		{"another's name", `{"from":"lead","kind":"force-unlock","resource":"main"}`, `"from" is "lead", but the errand was left in the outbox of dev`},
		{"unknown field", `{"kind":"lock","resource":"main","as":"lead"}`, `field "as"`},
		{"a field in another case", `{"kind":"lock","resource":"main","KIND":"force-unlock"}`, `field "KIND"`},
		{"a field twice", `{"kind":"lock","kind":"force-unlock","resource":"main"}`, "given twice"},
		{"no kind", `{"resource":"main"}`, "kind is missing"},
		{"an unknown kind", `{"kind":"delete-stream"}`, `kind "delete-stream"`},
		{"no resource", `{"kind":"lock"}`, "the resource is missing"},
		{"a resource of two lines", `{"kind":"lock","resource":"main\nfake line"}`, "one line"},
		{"a warning too long", `{"kind":"change-board","warn":"` + strings.Repeat("w", mailbox.MaxTitleLength+1) + `"}`, "one line of at most 200"},
		{"a change of nothing", `{"kind":"change-board"}`, "changes nothing"},
		{"no value", `{"kind":"set-state","key":"k"}`, "the value of k is missing"},
		{"a key of 4,000 characters", `{"kind":"set-state","key":"` + strings.Repeat("k", 4000) + `","value":1}`, "the key is not one line of at most 200"},
		{"not an object", `[1,2]`, "not a JSON object"},
		{"too big", huge, "over the limit of 131072"},
	} {
		path := filepath.Join(s.OutboxDir("dev"), "bad.errand")
		if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := b.Open("dev", path)
		var refused mailbox.Refusal
		if !errors.As(err, &refused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a refusal saying %q", c.name, err, c.want)
		}
	}

	// A link is refused unread, wherever it points.
	link := filepath.Join(s.OutboxDir("dev"), "link.errand")
	if err := os.Symlink("/etc/passwd", link); err != nil {
		t.Fatal(err)
	}
	var refused mailbox.Refusal
	if _, err := b.Open("dev", link); !errors.As(err, &refused) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link: %v; want it refused unread", err)
	}
	// A file half written by hand may still be being written.
	half := filepath.Join(s.OutboxDir("dev"), "half.errand")
	os.WriteFile(half, []byte(`{"kind":"lo`), 0o600)
	var unsettled *mailbox.Unsettled
	if _, err := b.Open("dev", half); !errors.As(err, &unsettled) {
		t.Errorf("a half-written errand: %v; want it left to settle", err)
	}
	// A folder of an errand's name is no errand.
	os.Mkdir(filepath.Join(s.OutboxDir("dev"), "dir.errand"), 0o700)
	if _, errands, _ := s.Outbox("dev"); len(errands) != 3 {
		t.Errorf("Outbox lists %q; want the three files", errands)
	}
}

func testBox(t *testing.T) (*mailbox.Store, *Box) {
	t.Helper()
	s := mailbox.NewStore(t.TempDir())
	if err := s.Ensure("dev"); err != nil {
		t.Fatal(err)
	}
	return s, In(s)
}
