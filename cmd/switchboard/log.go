package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"switchboard/conversation"
	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/internal/watch"
	"switchboard/rules"

	"github.com/spf13/cobra"

	"switchboard/mailbox"
)

type logOptions struct {
	follow  bool
	agent   string
	blocked bool
	last    int
	since   string
}

func newLogCmd(io *streams, g *globals) *cobra.Command {
	opts := &logOptions{}
	cmd := &cobra.Command{
		Use:   "log [--follow] [--agent A] [--blocked] [-n N] [--since TIME]",
		Short: "The audit log: one line per routed message",
		Long: `Print the audit log, one line per routed message: seq, time, sender → recipients,
title, and "delivered" or "BLOCKED" with the reason. Oversight agents (and the
operator) see every message; other agents see the messages they sent or were
sent. Read the full content with switchboard show SEQ.

-n N prints the last N messages (of those the other options keep), and
--since the messages logged since a time: a duration ago (90m, 2h), a clock
time today (14:30), a date (2026-11-25) or an RFC 3339 time. Both read the
log from where they start, however long it is.`,
		Example: `  switchboard log
  switchboard log -n 20
  switchboard log --since 1h --blocked
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
	f.IntVarP(&opts.last, "last", "n", 0, "only the last N messages")
	f.StringVar(&opts.since, "since", "", "only messages logged since TIME: 90m, 2h, 14:30, 2026-11-25 or an RFC 3339 time")
	return cmd
}

func runLog(ctx context.Context, io *streams, g *globals, opts *logOptions) error {
	ws, rulesErr, err := openReading(g)
	if err != nil {
		return err
	}
	if opts.last < 0 {
		return usageError("-n takes a number of messages, like -n 20")
	}
	warnBrokenRules(io, ws, rulesErr)
	filter := desk.LogFilter{About: opts.agent, Blocked: opts.blocked, Last: opts.last}
	if opts.since != "" {
		if filter.Since, err = parseSince(opts.since, time.Now()); err != nil {
			return usageError("%v", err)
		}
	}
	d := ws.desk()
	view, err := newLogView(ws)
	if err != nil {
		return err
	}
	var shown []mailbox.Record
	var offset int64
	count := 0
	switch {
	case !opts.follow && opts.last == 0 && g.json:
		// The whole log is written as it is read.
		out := &jsonArray{w: io.out}
		offset, err = d.EachLog(filter, func(rec mailbox.Record) { out.add(view.entry(rec)) })
		if err == nil {
			err = out.close()
		}
	case !opts.follow && opts.last == 0:
		offset, err = d.EachLog(filter, func(rec mailbox.Record) {
			count++
			fmt.Fprintln(io.out, view.line(rec))
		})
	default:
		shown, offset, err = d.Log(filter)
		count = len(shown)
	}
	var unknown *desk.UnknownAgentError
	if errors.As(err, &unknown) {
		return notAnAgent(ws.rules, unknown.Name, "")
	}
	if err != nil {
		return err
	}
	if !opts.follow {
		if g.json && opts.last > 0 {
			return writeJSON(io.out, view.entries(shown))
		}
		if g.json {
			return nil
		}
		view.print(io.out, shown, false)
		if count == 0 {
			fmt.Fprintln(io.errOut, "no messages logged yet")
		}
		return nil
	}
	view.print(io.out, shown, g.json)
	return followLog(ctx, ws.store.LogPath(), offset, func(records []mailbox.Record) {
		if err := view.refresh(ws); err != nil {
			fmt.Fprintf(io.errOut, "switchboard: %v\n", err)
		}
		view.print(io.out, d.Filter(records, filter), g.json)
	})
}

// logView is how the log is shown: the width of its from → to column, and,
// in a team across machines, the copies that still wait on this host for
// the hub (by the seq of their record), which are not delivered yet.
type logView struct {
	pairWidth int
	waiting   map[int64][]string
	outbox    string
	// announced is how the master announced each message, by seq.
	announced map[int64][]conversation.Announcement
}

func newLogView(ws *caller) (*logView, error) {
	v := &logView{pairWidth: pairWidth(ws.rules), outbox: relativeTo(ws.root, ws.store.HubOutbox().Dir())}
	return v, v.refresh(ws)
}

// refresh reads again which copies wait for the hub, and how messages
// were announced.
func (v *logView) refresh(ws *caller) error {
	waiting, err := ws.store.HubOutbox().Recipients()
	v.waiting = waiting
	announced, aerr := conversation.Of(ws.store).Announcements()
	v.announced = announced
	return errors.Join(err, aerr)
}

// print writes records as lines, or as JSON lines.
func (v *logView) print(w io.Writer, records []mailbox.Record, asJSON bool) {
	if asJSON {
		for _, e := range v.entries(records) {
			writeCompactJSON(w, e)
		}
		return
	}
	for _, r := range records {
		fmt.Fprintln(w, v.line(r))
	}
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
	// Waiting are the recipients, of Delivered, whose copies still wait on
	// this host for the hub of a team across machines.
	Waiting []string `json:"waiting"`
	// Announced says how the master announced it to each recipient it
	// announced it to: through the client's own inbox, typed, as an
	// interrupt, or on a shell's screen.
	Announced []announcedTo `json:"announced"`
}

// announcedTo is one recipient's announcement, as log --json gives it.
type announcedTo struct {
	To      string    `json:"to"`
	Channel string    `json:"channel"`
	Time    time.Time `json:"time"`
}

func (v *logView) entries(records []mailbox.Record) []logEntry {
	entries := make([]logEntry, 0, len(records))
	for _, r := range records {
		entries = append(entries, v.entry(r))
	}
	return entries
}

func (v *logView) entry(r mailbox.Record) logEntry {
	m := r.Message
	return logEntry{
		Seq: r.Seq, Time: r.Time, ID: m.ID, From: m.From, To: m.To, Title: m.Title,
		Priority: m.Priority, Type: m.Type, Status: r.Status,
		Delivered: nonNil(r.Delivered), Blocked: nonNil(r.Blocked), Waiting: nonNil(v.waiting[r.Seq]),
		Announced: v.announcedTo(r.Seq),
	}
}

func (v *logView) announcedTo(seq int64) []announcedTo {
	out := []announcedTo{}
	for _, a := range v.announced[seq] {
		out = append(out, announcedTo{To: a.To, Channel: a.Channel, Time: a.Time})
	}
	return out
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

func (v *logView) line(r mailbox.Record) string {
	m := r.Message
	// A broadcast keeps its column as narrow as any message: whom it
	// reached is said with the outcome.
	to := strings.Join(m.To, ", ")
	waiting := v.waiting[r.Seq]
	var outcome string
	switch {
	case r.Status == mailbox.StatusDelivered && len(waiting) > 0:
		outcome = fmt.Sprintf("waiting for the hub in %s: %s", v.outbox, strings.Join(waiting, ", "))
		if here := slices.DeleteFunc(slices.Clone(r.Delivered), func(a string) bool { return slices.Contains(waiting, a) }); len(here) > 0 {
			outcome = "delivered to " + strings.Join(here, ", ") + "; " + outcome
		}
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
	if how := v.announcedTo(r.Seq); len(how) > 0 {
		parts := make([]string, len(how))
		for i, a := range how {
			parts[i] = a.Channel + " to " + a.To
		}
		outcome += " [" + strings.Join(parts, ", ") + "]"
	}
	pair := m.From + " → " + to
	if pad := v.pairWidth - utf8.RuneCountInString(pair); pad > 0 {
		pair += strings.Repeat(" ", pad)
	}
	return safetext.Line(fmt.Sprintf("%5d  %s  %s  %s%s  — %s", r.Seq, localTime(r.Time), pair, m.Title, flag, outcome))
}

// followLog calls emit with each batch of records appended after offset,
// until ctx is done. It wakes on fsnotify events of the log folder; a tick
// runs only where the folder cannot be watched (no inotify).
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

// parseSince reads the time --since names, as of now: a duration ago, a
// clock time today, a date, or an RFC 3339 time.
func parseSince(text string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(text); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, text); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", text, now.Location()); err == nil {
		return t, nil
	}
	for _, layout := range []string{"15:04", "15:04:05"} {
		if t, err := time.ParseInLocation(layout, text, now.Location()); err == nil {
			y, m, d := now.Date()
			return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, now.Location()), nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q is not a time: give a duration ago (90m, 2h), a clock time today (14:30), a date (2026-11-25) or an RFC 3339 time", text)
}

// jsonArray writes a JSON array one element at a time, indented as
// writeJSON writes a whole one.
type jsonArray struct {
	w     io.Writer
	count int
	err   error
}

func (a *jsonArray) add(v any) {
	if a.err != nil {
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	if a.err = enc.Encode(v); a.err != nil {
		return
	}
	sep := ",\n  "
	if a.count == 0 {
		sep = "[\n  "
	}
	a.count++
	_, a.err = fmt.Fprint(a.w, sep, strings.TrimSuffix(buf.String(), "\n"))
}

func (a *jsonArray) close() error {
	if a.err != nil {
		return a.err
	}
	end := "\n]\n"
	if a.count == 0 {
		end = "[]\n"
	}
	_, err := fmt.Fprint(a.w, end)
	return err
}
