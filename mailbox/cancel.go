package mailbox

import "encoding/json"

// A cancel notice is the interrupt `cancel` sends each agent it stops:
// what makes an interrupt one is its "cancel" field, never its title,
// which any agent can write; and the field counts only where the master
// vouched for it when it routed the interrupt (Record.Cancel). A master
// that takes a copy of one from another host checks it again there.

// fieldCancel is the cancel notice's field, kept among a message's extra
// fields like the permission prompt's.
const fieldCancel = "cancel"

// Cancel is what a cancel notice says.
type Cancel struct {
	// By is who cancelled: the notice's sender.
	By     string `json:"by"`
	Reason string `json:"reason,omitempty"`
	// Under is the agent cancelled, when it is not the recipient: the
	// recipient works under it, and stops with it.
	Under string `json:"under,omitempty"`
}

// Cancel is the message's cancel field, when it has a well-formed one: an
// interrupt whose field names its sender. It says what the sender claims:
// only a record that vouches for it makes the message a cancel notice.
func (m *Message) Cancel() (Cancel, bool) {
	raw, ok := m.Extra[fieldCancel]
	if !ok || m.Type != TypeInterrupt {
		return Cancel{}, false
	}
	var c Cancel
	if err := json.Unmarshal(raw, &c); err != nil || c.By == "" || c.By != m.From {
		return Cancel{}, false
	}
	return c, true
}

// HasCancelField reports whether the message carries a cancel field at
// all, well-formed or not: one the master has to vouch for.
func (m *Message) HasCancelField() bool {
	_, ok := m.Extra[fieldCancel]
	return ok
}

// SetCancel makes the message the cancel notice c.
func (m *Message) SetCancel(c Cancel) { m.setExtra(fieldCancel, c) }

// CancelNotice is what the routed message says as a cancel notice, when
// the record vouches that it is one.
func (r *Record) CancelNotice() (Cancel, bool) {
	if !r.Cancel || r.Message == nil {
		return Cancel{}, false
	}
	return r.Message.Cancel()
}
