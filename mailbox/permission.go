package mailbox

import (
	"encoding/json"
	"slices"
)

// A permission prompt is a request that a client's permission bridge sends
// up in its agent's name: it asks whether a tool call may run, and its
// answer runs the call or refuses it. What makes a request one is its
// "permission" field, never its title, which any agent can write; and a
// field any agent can write too counts only where the master vouched for
// it when it routed the request (Record.Permission). Readers ask the
// record (Record.PermissionPrompt), not the message.

// PermissionTitle starts the titles the permission bridge writes, for the
// people who read them. It makes nothing a permission prompt: the master
// notes a request titled like one that is none.
const PermissionTitle = "[PERMISSION]"

// fieldPermission is the permission prompt's field, kept among a message's
// extra fields like the ask protocol's options.
const fieldPermission = "permission"

// permissionOptions are the answers a permission prompt takes: allow or
// deny this call, always or never this call and every later one its rule
// covers.
var permissionOptions = []string{"allow", "deny", "always", "never"}

// PermissionOptions are the answers a permission prompt takes, in the
// order a person is offered them.
func PermissionOptions() []string { return slices.Clone(permissionOptions) }

// Permission is what a permission prompt asks.
type Permission struct {
	// Agent is the agent whose client asks: the call runs in its pane.
	Agent string `json:"agent"`
	Tool  string `json:"tool"`
	// Command is the call's shell command, for a shell tool.
	Command string `json:"command,omitempty"`
	// Rule is what an always or a never would cover, in the client's
	// words ("npm *"); empty covers every call of the tool.
	Rule string `json:"rule,omitempty"`
	// Forwards is the id of the prompt this one passes up (ask --forward):
	// the same question, asked by the agent it was put to.
	Forwards string `json:"forwards,omitempty"`
}

// Permission is the message's permission field, when it has a well-formed
// one. It says what the sender claims: only a record that vouches for it
// makes the message a permission prompt.
func (m *Message) Permission() (Permission, bool) {
	raw, ok := m.Extra[fieldPermission]
	if !ok {
		return Permission{}, false
	}
	var p Permission
	if err := json.Unmarshal(raw, &p); err != nil || p.Agent == "" || p.Tool == "" {
		return Permission{}, false
	}
	return p, true
}

// HasPermissionField reports whether the message carries a permission
// field at all, well-formed or not: one the master has to vouch for.
func (m *Message) HasPermissionField() bool {
	_, ok := m.Extra[fieldPermission]
	return ok
}

// SetPermission makes the message the permission prompt p: a request
// answered by one of PermissionOptions.
func (m *Message) SetPermission(p Permission) {
	m.setExtra(fieldPermission, p)
	m.SetOptions(permissionOptions)
}

// PermissionPrompt is what the routed message asks as a permission prompt,
// when the record vouches that it is one.
func (r *Record) PermissionPrompt() (Permission, bool) {
	if !r.Permission || r.Message == nil {
		return Permission{}, false
	}
	return r.Message.Permission()
}
