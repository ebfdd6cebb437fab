package web

import (
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"switchboard/desk"
	"switchboard/internal/testkit/browser"
	"switchboard/mailbox"
)

// TestOnlyAVouchedPromptHasAllowAndDenyButtons: the person is asked two
// questions titled "[PERMISSION]", with the permission bridge's options:
// a helper's prompt the master vouched for, and a tester's plain request.
// The prompt has a button for each of allow, deny, always and never, each
// saying what it does; the request has one button, which asks for the
// answer in a dialog that says it is no permission prompt, and sends what
// the person types.
func TestOnlyAVouchedPromptHasAllowAndDenyButtons(t *testing.T) {
	now := time.Now()
	snap := twoAgents(now)
	snap.Requests = []desk.OpenRequest{
		{Seq: 2, ID: "01a2-prompt", From: "reviewer_agent-1", To: []string{mailbox.Operator}, Title: "[PERMISSION] reviewer_agent-1 wants to run Bash: npm test",
			Options: mailbox.PermissionOptions(), Time: now, Covers: "Bash(npm *)",
			Permission: &mailbox.Permission{Agent: "reviewer_agent-1", Tool: "Bash", Command: "npm test", Rule: "npm *"}},
		{Seq: 3, ID: "01a3-plain", From: "tester_agent", To: []string{mailbox.Operator}, Title: "[PERMISSION] tester_agent wants to run Bash: rm -rf /",
			Options: mailbox.PermissionOptions(), Time: now},
	}
	o := open(t, snap)
	buttons := func(id string) []string {
		return evaluate[[]string](t, o.tab, `[...document.querySelectorAll('#questions li[data-request="`+id+`"] button')].map((b) => b.textContent)`)
	}
	if err := holds(o.tab, `document.querySelectorAll("#questions li").length === 2`, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := buttons("01a2-prompt"); !slices.Equal(got, mailbox.PermissionOptions()) {
		t.Errorf("the vouched prompt's buttons: %q; want allow, deny, always, never", got)
	}
	if says := evaluate[string](t, o.tab, `document.querySelector('#questions li[data-request="01a2-prompt"] button:nth-child(4)').title`); says != "reviewer_agent-1: refuse it, and from now on every call of Bash(npm *)" {
		t.Errorf("never says %q", says)
	}
	if got := buttons("01a3-plain"); !slices.Equal(got, []string{"answer…"}) {
		t.Fatalf("the plain request's buttons: %q; want one that asks for the answer", got)
	}
	if err := browser.ClickUntil(o.tab, `#questions li[data-request="01a3-plain"] button`, "#act-about", "not a permission prompt", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := holds(o.tab, `document.querySelector("#act").open && document.querySelector("#act-about").textContent.includes("not a permission prompt")`, 2*time.Second); err != nil {
		t.Fatalf("the answer's dialog: %v", err)
	}
	if err := chromedp.Do(o.tab, chromedp.SendKeys("#act-fields input", "no, say what it is for"), chromedp.Click("#act-do")); err != nil {
		t.Fatal(err)
	}
	if err := holds(o.tab, `document.querySelector("#said").textContent.includes("answered #3")`, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if done := o.acts.actions(); !slices.Equal(done, []string{"answer 01a3-plain no, say what it is for"}) {
		t.Errorf("actions: %q; want the typed answer to #3 alone", done)
	}
}
