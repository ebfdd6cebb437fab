package panes

import (
	"fmt"

	"switchboard/conversation"
)

// borderOf is the pane border: name, state, and unread mail.
func borderOf(v *view, unread, urgent int) string {
	title := v.seat.DisplayName + " · " + v.state.State
	if v.state.State == conversation.Exited && v.state.ExitStatus != nil {
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

// borderStyle is the style of the pane's border lines: red while an
// interrupt is unread, yellow while urgent mail is, the default otherwise.
func borderStyle(v *view, urgent int) string {
	switch {
	case v.alert != nil:
		return "fg=red,bold"
	case urgent > 0:
		return "fg=yellow"
	}
	return "default"
}
