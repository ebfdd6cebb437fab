package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

const timeLayout = "2006-01-02 15:04:05"

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func localTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(timeLayout)
}

// printMessage writes a message as a person reads it: headers, a blank
// line, the content.
func printMessage(w io.Writer, m *mailbox.Message) {
	printRouted(w, m, nil)
}

// printRouted prints a logged message with what routing did with it: to
// whom it was delivered, and for whom it was blocked and why.
func printRouted(w io.Writer, m *mailbox.Message, rec *mailbox.Record) {
	if m.Seq > 0 {
		fmt.Fprintf(w, "#%d  ", m.Seq)
	}
	fmt.Fprintf(w, "%s\n", safetext.Line(m.Title))
	header := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "  %-13s %s\n", name+":", safetext.Line(value))
		}
	}
	if m.Via != "" {
		header("From", m.From+" (host "+m.Via+")")
	} else {
		header("From", m.From)
	}
	header("To", strings.Join(m.To, ", "))
	header("Sent", localTime(m.Timestamp))
	if rec != nil {
		header("Routed", localTime(rec.Time))
		header("Delivered to", strings.Join(rec.Delivered, ", "))
		for _, b := range rec.Blocked {
			header("BLOCKED", b.To+": "+b.Reason)
		}
		for _, n := range rec.Notes {
			header("Note", n)
		}
	} else if !m.DeliveredAt.IsZero() {
		header("Delivered", localTime(m.DeliveredAt))
	}
	header("Priority", m.Priority)
	header("Type", m.Type)
	header("ID", m.ID)
	header("Correlation", m.CorrelationID)
	header("In reply to", m.InReplyTo)
	if m.RequiresResponse {
		how := "--content ..."
		if len(m.Options()) > 0 {
			how = "--option ..."
		}
		header("Response", fmt.Sprintf("requested: switchboard reply %s %s", m.ID, how))
	}
	if m.Content != "" {
		fmt.Fprintf(w, "\n%s", safetext.Text(m.Content))
		if !strings.HasSuffix(m.Content, "\n") {
			fmt.Fprintln(w)
		}
	}
}

func writeCompactJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
