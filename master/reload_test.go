package master

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/bulletin"
	"switchboard/mailbox"
	"switchboard/rules"
)

// replaceRules writes a new rules file the way editors do: a new file renamed
// over the old one.
func replaceRules(t *testing.T, h *harness, text string) {
	t.Helper()
	tmp := filepath.Join(h.root, ".rules.swp")
	writeFile(t, tmp, text)
	if err := os.Rename(tmp, filepath.Join(h.root, rules.FileName)); err != nil {
		t.Fatal(err)
	}
}

func TestReloadsChangedRules(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	replaceRules(t, h, `allowed_interactions:
  tester_agent:
    can_send_to: [reviewer_agent]
  reviewer_agent:
    can_receive_from: [tester_agent]
`)
	h.waitFor("the reload", func() bool { return strings.Contains(h.log.String(), "rules reloaded") })

	post(t, h, "tester_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "now allowed"})
	h.waitInbox("reviewer_agent", 1)
}

func TestKeepsOldRulesWhenTheNewOnesAreInvalid(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	replaceRules(t, h, teamRules+"surprise: true\n")
	h.waitFor("the refusal", func() bool {
		return strings.Contains(h.log.String(), "rules not reloaded") && strings.Contains(h.log.String(), `unknown key "surprise"`)
	})

	post(t, h, "developer_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "still routed"})
	h.waitInbox("reviewer_agent", 1)
	post(t, h, "tester_agent", &mailbox.Message{To: []string{"reviewer_agent"}, Title: "still blocked"})
	h.waitInbox("tester_agent", 1)
	if n := len(h.inbox("reviewer_agent", mailbox.All)); n != 1 {
		t.Errorf("reviewer has %d messages; the old rules' forbidden entry must still hold", n)
	}
	// The overseer and every agent, through the bulletin, hear of it; once
	// a version loads, the bulletin's warning goes.
	if got := titled(h.inbox("master_agent", mailbox.All), "RULES REFUSED"); len(got) != 1 || !strings.Contains(got[0].Content, `unknown key "surprise"`) {
		t.Errorf("the overseer heard of the refusal %d times: %v", len(got), got)
	}
	rulesWarning := func() bool {
		return slices.ContainsFunc(h.bulletin().Warnings, func(w bulletin.Warning) bool { return w.Topic == bulletin.TopicRules })
	}
	if !rulesWarning() {
		t.Errorf("the bulletin does not say the rules were refused: %+v", h.bulletin().Warnings)
	}
	replaceRules(t, h, teamRules)
	h.waitFor("the warning to go", func() bool { return !rulesWarning() })
}

func TestNewAgentGetsAMailboxWithoutRestart(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	replaceRules(t, h, strings.Replace(teamRules, "allowed_interactions:\n", `allowed_interactions:
  docs_agent:
    can_send_to: [master_agent]
    can_receive_from: [master_agent]
`, 1))
	h.waitFor("docs_agent's mailbox", func() bool { return exists(h.store.OutboxDir("docs_agent")) })

	h.drop("docs_agent", "hi.json", `{"to": ["master_agent"], "title": "docs are up"}`)
	// The overseer hears of the new agent, then from it.
	got := h.waitInbox("master_agent", 2)
	if len(titled(got, "RULES CHANGED")) != 1 || len(titled(got, "docs are up")) != 1 {
		t.Errorf("master_agent's inbox: %v; want the notice of the new agent and its message", got)
	}
}

// TestTheOverseersAreToldWhatNewRulesOpen: the tester's forbidden entry is
// taken out of the file; the master agent, which oversees, is told that
// tester_agent → reviewer_agent is now allowed, and so is every agent, by
// a warning on the bulletin.
func TestTheOverseersAreToldWhatNewRulesOpen(t *testing.T) {
	h := newHarness(t)
	h.start(Options{})
	replaceRules(t, h, `allowed_interactions:
  master_agent:
    can_send_to: ["*"]
    can_receive_from: ["*"]
  developer_agent:
    can_send_to: [master_agent, reviewer_agent, tester_agent]
    can_receive_from: [master_agent, reviewer_agent, tester_agent]
  reviewer_agent:
    can_send_to: [master_agent, developer_agent]
    can_receive_from: [master_agent, developer_agent, tester_agent]
  tester_agent:
    can_send_to: [master_agent, developer_agent, reviewer_agent]
    can_receive_from: [master_agent, developer_agent]
oversight: [master_agent]
`)
	reports := h.waitInbox("master_agent", 1)
	if reports[0].Title != "RULES CHANGED: tester_agent → reviewer_agent is now allowed" || !strings.Contains(reports[0].Content, "Now allowed:\n  tester_agent → reviewer_agent") {
		t.Errorf("the overseer was told %q:\n%s", reports[0].Title, reports[0].Content)
	}
	if !slices.ContainsFunc(h.bulletin().Warnings, func(w bulletin.Warning) bool {
		return w.Topic == bulletin.TopicRules && strings.Contains(w.Text, "RULES CHANGED: tester_agent → reviewer_agent is now allowed")
	}) {
		t.Errorf("the bulletin does not warn of the wider rules: %+v", h.bulletin().Warnings)
	}
}

// inPlaceWriters rewrite the rules file the three ways editors do. In
// place (cat > file, an IDE): cut to nothing, then written in two parts,
// the first of which is a valid file without the forbidden entries; with a
// backup first (vim's backupcopy=yes); and whole, by rename.
var inPlaceWriters = map[string]func(path, text string) error{
	"in place": writeInPlace,
	"backup and write": func(path, text string) error {
		old, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path+"~", old, 0o600); err != nil {
			return err
		}
		if err := writeInPlace(path, text); err != nil {
			return err
		}
		return os.Remove(path + "~")
	},
	"rename": func(path, text string) error {
		if err := os.WriteFile(path+".tmp", []byte(text), 0o600); err != nil {
			return err
		}
		return os.Rename(path+".tmp", path)
	},
}

func writeInPlace(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	cut := strings.Index(text, "forbidden_interactions:")
	if _, err := f.WriteString(text[:cut]); err != nil {
		f.Close()
		return err
	}
	runtime.Gosched()
	if _, err := f.WriteString(text[cut:]); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// openRules let every agent write to every other, but for one forbidden
// pair: without its last lines, the file lets the tester write to the
// reviewer.
const openRules = `allowed_interactions:
  master_agent: {can_send_to: ["*"], can_receive_from: ["*"]}
  developer_agent: {can_send_to: ["*"], can_receive_from: ["*"]}
  reviewer_agent: {can_send_to: ["*"], can_receive_from: ["*"]}
  tester_agent: {can_send_to: ["*"], can_receive_from: ["*"]}
oversight: [master_agent]
forbidden_interactions:
  - from: tester_agent
    to: reviewer_agent
    reason: "Should go through developer first"
`

// TestRulesWrittenInPlaceLetNoForbiddenMailThrough rewrites the rules file
// 100 times each way while the tester writes to the reviewer, whom every
// version forbids it: no message gets through. Now and then a broken
// version stays a while: each is refused and reported once.
func TestRulesWrittenInPlaceLetNoForbiddenMailThrough(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(h.root, rules.FileName)
	writeFile(t, path, openRules)
	h.start(Options{RulesSettle: 100 * time.Millisecond})
	stop := make(chan struct{})
	streamed := make(chan int, 1)
	end := sync.OnceValue(func() int { close(stop); return <-streamed })
	defer end()
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				streamed <- n
				return
			default:
			}
			msg := &mailbox.Message{From: "tester_agent", To: []string{"reviewer_agent"}, Title: "around the developer " + strconv.Itoa(n+1)}
			msg.Normalize(time.Now())
			if _, err := h.store.Post("tester_agent", msg); err == nil {
				n++
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	refused := 0
	for _, style := range slices.Sorted(maps.Keys(inPlaceWriters)) {
		write := inPlaceWriters[style]
		for i := range 100 {
			text := fmt.Sprintf("# %s, version %d\n%s", style, i, openRules)
			if i%25 == 24 {
				// A broken version that stands still: refused, and told.
				text += "surprise: true\n"
				refused++
			}
			if err := write(path, text); err != nil {
				t.Fatal(err)
			}
			if i%25 == 24 {
				want := refused
				h.waitFor("the refusal of "+style+" version "+strconv.Itoa(i), func() bool {
					return len(titled(h.inbox("master_agent", mailbox.All), "RULES REFUSED")) == want
				})
			}
		}
	}
	sent := end()
	h.waitFor("every message routed", func() bool { return len(h.records()) >= sent })
	for _, rec := range h.records() {
		if len(rec.Delivered) > 0 {
			t.Fatalf("#%d %q from %s reached %v under rules rewritten in place", rec.Seq, rec.Message.Title, rec.Message.From, rec.Delivered)
		}
	}
	if got := len(titled(h.inbox("master_agent", mailbox.All), "RULES REFUSED")); got != refused {
		t.Errorf("the overseer heard of %d refused versions; want %d", got, refused)
	}
	if strings.Contains(h.log.String(), "is now allowed") {
		t.Errorf("the master took a half-written file for new rules:\n%s", h.log.String())
	}
}

// titled picks the messages whose title starts with prefix, leaving msgs
// as they were.
func titled(msgs []*mailbox.Message, prefix string) []*mailbox.Message {
	return slices.DeleteFunc(slices.Clone(msgs), func(m *mailbox.Message) bool { return !strings.HasPrefix(m.Title, prefix) })
}
