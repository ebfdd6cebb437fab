package panes

import (
	"fmt"

	"switchboard/mailbox"
)

// borderOf is the pane border: name, state, and unread mail.
func borderOf(v *view, unread, urgent int) string {
	title := v.seat.DisplayName + " · " + v.state.State
	if v.state.State == mailbox.StateExited && v.state.ExitStatus != nil {
		title += fmt.Sprintf(" (status %d)", *v.state.ExitStatus)
	}
	if unread > 0 {
		title += fmt.Sprintf(" · %d new", unread)
		if urgent > 0 {
			title += fmt.Sprintf(" (%d urgent)", urgent)
		}
	}
	if v.alert != nil {
		title += " · " + v.alert.text
	}
	return title
}
