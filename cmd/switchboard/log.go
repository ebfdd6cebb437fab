package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"switchboard/desk"
	"switchboard/rules"
	"switchboard/safetext"
	"switchboard/watch"

	"github.com/spf13/cobra"

	"switchboard/mailbox"
)

type logOptions struct {
	follow  bool
	agent   string
	blocked bool
}

func newLogCmd(io *streams, g *globals) *cobra.Command {
	opts := &logOptions{}
	cmd := &cobra.Command{
		Use:   "log [--follow] [--agent A] [--blocked]",
		Short: "The audit log: one line per routed message",
		Long: `Print the audit log, one line per routed message: seq, time, sender → recipients,
title, and "delivered" or "BLOCKED" with the reason. Oversight agents (and the
operator) see every message; other agents see the messages they sent or were
sent. Read the full content with switchboard show SEQ.`,
		Example: `  switchboard log
  switchboard log --blocked
  switchboard log --agent tester_agent --follow
  switchboard log --json | jq '.[] | select(.status == "blocked")'`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLog(cmd.Context(), io, g, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&opts.follow, "follow", "f", false, "keep printing new messages as they are routed")
	f.StringVar(&opts.agent, "agent", "", "only messages from or to this agent")
	f.BoolVar(&opts.blocked, "blocked", false, "only messages the rules blocked (wholly or in part)")
	return cmd
}

func runLog(ctx context.Context, io *streams, g *globals, opts *logOptions) error {
	ws, rulesErr, err := openReading(g)
	if err != nil {
		return err
	}
	warnBrokenRules(io, ws, rulesErr)
	filter := desk.LogFilter{About: opts.agent, Blocked: opts.blocked}
	d := ws.desk()
	shown, offset, err := d.Log(filter)
	var unknown *desk.UnknownAgentError
	if errors.As(err, &unknown) {
		return notAnAgent(ws.rules, unknown.Name, "")
	}
	if err != nil {
		return err
	}
	if !opts.follow {
		if g.json {
			return writeJSON(io.out, logJSON(shown))
		}
		if len(shown) == 0 {
			fmt.Fprintln(io.errOut, "no messages logged yet")
		}
		printLog(io.out, shown, g.json, pairWidth(ws.rules))
		return nil
	}
	printLog(io.out, shown, g.json, pairWidth(ws.rules))
	return followLog(ctx, ws.store.LogPath(), offset, func(records []mailbox.Record) {
		printLog(io.out, d.Filter(records, filter), g.json, pairWidth(ws.rules))
	})
}

// logEntry is the JSON form of a log line: the record with its message's
// summary lifted to the top and the content left to `show`.
type logEntry struct {
	Seq       int64           `json:"seq"`
	Time      time.Time       `json:"time"`
	ID        string          `json:"id"`
	From      string          `json:"from"`
	To        []string        `json:"to"`
	Title     string          `json:"title"`
	Priority  string          `json:"priority"`
	Type      string          `json:"type"`
	Status    string          `json:"status"`
	Delivered []string        `json:"delivered"`
	Blocked   []mailbox.Block `json:"blocked"`
}

func logJSON(records []mailbox.Record) []logEntry {
	entries := make([]logEntry, 0, len(records))
	for _, r := range records {
		m := r.Message
		entries = append(entries, logEntry{
			Seq: r.Seq, Time: r.Time, ID: m.ID, From: m.From, To: m.To, Title: m.Title,
			Priority: m.Priority, Type: m.Type, Status: r.Status,
			Delivered: nonNil(r.Delivered), Blocked: nonNil(r.Blocked),
		})
	}
	return entries
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// pairWidth is the width of the "from → to" column of the log: room for
// the team's two longest names, so that the titles line up; a broadcast
// or a message to several goes past it.
func pairWidth(r *rules.Rules) int {
	longest := 0
	for _, name := range r.Agents() {
		longest = max(longest, utf8.RuneCountInString(name))
	}
	return min(2*longest+len(" → "), 48)
}

// printLog writes records as lines (the from → to column pairWidth wide),
// or as JSON lines.
func printLog(w io.Writer, records []mailbox.Record, asJSON bool, pairWidth int) {
	if asJSON {
		for _, e := range logJSON(records) {
			writeCompactJSON(w, e)
		}
		return
	}
	for _, r := range records {
		fmt.Fprintln(w, logLine(r, pairWidth))
	}
}

func logLine(r mailbox.Record, pairWidth int) string {
	m := r.Message
	// A broadcast keeps its column as narrow as any message: whom it
	// reached is said with the outcome.
	to := strings.Join(m.To, ", ")
	var outcome string
	switch {
	case r.Status == mailbox.StatusDelivered && m.IsBroadcast():
		outcome = "delivered to " + strings.Join(r.Delivered, ", ")
	case r.Status == mailbox.StatusDelivered:
		outcome = "delivered"
	default:
		var blocked []string
		for _, b := range r.Blocked {
			blocked = append(blocked, fmt.Sprintf("BLOCKED → %s: %s", b.To, b.Reason))
		}
		if len(r.Blocked) == 1 && len(r.Delivered) == 0 {
			blocked = []string{"BLOCKED: " + r.Blocked[0].Reason}
		}
		if len(r.Delivered) > 0 {
			blocked = append([]string{"delivered to " + strings.Join(r.Delivered, ", ")}, blocked...)
		}
		outcome = strings.Join(blocked, "; ")
	}
	flag := ""
	if m.Priority == mailbox.PriorityUrgent {
		flag = " [urgent]"
	}
	for _, note := range r.Notes {
		outcome += " (" + note + ")"
	}
	pair := m.From + " → " + to
	if pad := pairWidth - utf8.RuneCountInString(pair); pad > 0 {
		pair += strings.Repeat(" ", pad)
	}
	return safetext.Line(fmt.Sprintf("%5d  %s  %s  %s%s  — %s", r.Seq, localTime(r.Time), pair, m.Title, flag, outcome))
}

// followLog calls emit with each batch of records appended after offset,
// until ctx is done. It wakes on fsnotify events of the log folder, with a
// slow tick as the safety net for filesystems without inotify.
func followLog(ctx context.Context, path string, offset int64, emit func([]mailbox.Record)) error {
	changed := watch.NewFolders(time.Second, filepath.Dir(path))
	defer changed.Close()
	for {
		stopping := false
		select {
		case <-ctx.Done():
			stopping = true // one last read: nothing logged before Ctrl-C is missed
		case <-changed.C:
		}
		records, next, err := mailbox.ReadLog(path, offset)
		if err != nil {
			return err
		}
		offset = next
		if len(records) > 0 {
			emit(records)
		}
		if stopping {
			return nil
		}
	}
}
