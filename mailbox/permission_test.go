package mailbox

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestAPermissionPromptIsWhatItsRecordVouchesFor: the field the bridge
// sets survives the file and makes the message a request answered by the
// bridge's options; but only a record that vouches for it makes the
// message a permission prompt, and a field that is not the bridge's is
// none, though the master is still asked to vouch for it.
func TestAPermissionPromptIsWhatItsRecordVouchesFor(t *testing.T) {
	asks := Permission{Agent: "h1", Tool: "Bash", Command: "npm test", Rule: "npm *"}
	m := &Message{ID: "req-1", From: "h1", To: []string{"developer_agent"}, Title: PermissionTitle + " h1 wants to run Bash: npm test", Type: TypeRequest}
	m.SetPermission(asks)
	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	read, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := read.Permission(); !ok || got != asks || !slices.Equal(read.Options(), PermissionOptions()) {
		t.Fatalf("read back: %+v (%v), options %q; want %+v answered by %q", got, ok, read.Options(), asks, PermissionOptions())
	}
	for _, vouched := range []bool{false, true} {
		rec := Record{Message: read, Permission: vouched}
		if got, ok := rec.PermissionPrompt(); ok != vouched || (ok && got != asks) {
			t.Errorf("a record vouching %v: prompt %+v, %v", vouched, got, ok)
		}
	}
	titled := &Message{Title: PermissionTitle + " rm -rf /", Type: TypeRequest}
	if _, ok := (&Record{Message: titled, Permission: true}).PermissionPrompt(); ok || titled.HasPermissionField() {
		t.Error("a title alone carries a permission field")
	}
	for _, raw := range []string{`"rm -rf /"`, `{"tool":"Bash"}`, `{"agent":"h1"}`, `null`} {
		odd := &Message{Extra: map[string]json.RawMessage{"permission": json.RawMessage(raw)}}
		if _, ok := odd.Permission(); ok || !odd.HasPermissionField() {
			t.Errorf("the field %s: taken for the bridge's %v, to be vouched for %v", raw, ok, odd.HasPermissionField())
		}
		if _, ok := (&Record{Message: odd, Permission: true}).PermissionPrompt(); ok {
			t.Errorf("the field %s makes a prompt of a record that vouches for it", raw)
		}
	}
}
