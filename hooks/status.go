package hooks

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"switchboard/bulletin"
	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// mailNotes says " (1 urgent, 2 UNVERIFIED)" after a count of messages, or
// nothing.
func mailNotes(urgent, unverified int) string {
	var notes []string
	if urgent > 0 {
		notes = append(notes, fmt.Sprintf("%d urgent", urgent))
	}
	if unverified > 0 {
		notes = append(notes, fmt.Sprintf("%d %s", unverified, mailbox.Unverified))
	}
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, ", ") + ")"
}

// StatusLine is an agent's status in one line, for status lines.
func StatusLine(s *desk.Status, utf bool) string {
	mail := fmt.Sprintf("%d new", s.Unread) + mailNotes(s.Urgent, s.Unverified)
	status := oneLine(s.Bulletin.SystemStatus)
	line := fmt.Sprintf("%s | Global: %s", mail, status)
	if utf {
		line = "📬 " + mail + " | 🌐 Global: " + status
	}
	if s.Bulletin.CurrentPhase != "" {
		line += " | Phase: " + oneLine(s.Bulletin.CurrentPhase)
	}
	if n := len(s.Bulletin.Warnings); n > 0 {
		line += fmt.Sprintf(" | %d warning", n)
		if n > 1 {
			line += "s"
		}
	}
	return line
}

// StatusBox is an agent's status in a box, followed by the phase, warnings
// and held locks when there are any; plain ASCII when utf is false. Any
// agent may write the bulletin, so what it holds is printed escaped, a line
// each, and at most the bulletin's bounds of warnings and locks, with how
// many more.
func StatusBox(s *desk.Status, utf bool) string {
	mail := fmt.Sprintf("Mailbox: %d new", s.Unread) + mailNotes(s.Urgent, s.Unverified)
	status := oneLine(s.Bulletin.SystemStatus)
	inner := fmt.Sprintf(" %s | Global: %s", mail, status)
	tl, tr, bl, br, h, v := "+", "+", "+", "+", "-", "|"
	if utf {
		inner = fmt.Sprintf(" 📬 %s | 🌐 Global: %s", mail, status)
		tl, tr, bl, br, h, v = "╔", "╗", "╚", "╝", "═", "║"
	}
	width := max(54, displayWidth(inner)+2)
	var b strings.Builder
	b.WriteString(tl + strings.Repeat(h, width) + tr + "\n")
	b.WriteString(v + inner + strings.Repeat(" ", width-displayWidth(inner)) + v + "\n")
	b.WriteString(bl + strings.Repeat(h, width) + br + "\n")
	if s.Bulletin.CurrentPhase != "" {
		fmt.Fprintf(&b, "Phase: %s\n", oneLine(s.Bulletin.CurrentPhase))
	}
	warnings, older := bulletin.NewestWarnings(s.Bulletin.Warnings)
	if older > 0 {
		fmt.Fprintf(&b, "(%d older warnings not shown)\n", older)
	}
	for _, w := range warnings {
		fmt.Fprintf(&b, "Warning (%s): %s\n", oneLine(w.From), oneLine(w.Text))
	}
	names := make([]string, 0, len(s.Bulletin.SharedResources))
	for name := range s.Bulletin.SharedResources {
		names = append(names, name)
	}
	sort.Strings(names)
	more := max(0, len(names)-bulletin.MaxLocks)
	for _, name := range names[:len(names)-more] {
		l := s.Bulletin.SharedResources[name]
		fmt.Fprintf(&b, "Locked: %s by %s", oneLine(name), oneLine(l.Holder))
		if l.Reason != "" {
			fmt.Fprintf(&b, " (%s)", oneLine(l.Reason))
		}
		b.WriteString("\n")
	}
	if more > 0 {
		fmt.Fprintf(&b, "(%d more locks not shown)\n", more)
	}
	return b.String()
}

// oneLine is a text of the bulletin as the box and the status line print
// it: one line of at most a title's length, escaped, since any agent may
// have written it.
func oneLine(s string) string { return safetext.Line(mailbox.ClipTitle(s)) }

// displayWidth counts terminal columns: the two emoji of the box are wide.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		if r >= 0x1F300 {
			w += 2
		} else {
			w++
		}
	}
	return w
}

// UTF8Terminal reports whether the locale asks for UTF-8.
func UTF8Terminal() bool {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := os.Getenv(name); v != "" {
			v = strings.ToUpper(v)
			return strings.Contains(v, "UTF-8") || strings.Contains(v, "UTF8")
		}
	}
	return false
}
