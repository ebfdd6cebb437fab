package desk

import (
	"context"
	"slices"
	"strings"
	"time"

	"switchboard/bulletin"
	"switchboard/conversation"
	"switchboard/mailbox"
	"switchboard/rules/approvals"
)

// DefaultLogTail is how many of the last log records a snapshot reads: the
// log shown, and where last messages, tasks and open requests are found.
const DefaultLogTail = 200

// Snapshot is the team at one moment, as its overseers see it: the console
// in a terminal and the web view alike.
type Snapshot struct {
	At       time.Time        `json:"at"`
	Agents   []AgentSummary   `json:"agents"`   // as a tree under their parents, those that need you first
	Log      []mailbox.Record `json:"log"`      // the last records, oldest first
	Requests []OpenRequest    `json:"requests"` // the person's questions not answered yet, oldest first
	Status   string           `json:"status"`   // the bulletin's system status
	Phase    string           `json:"phase,omitempty"`
	Warnings []string         `json:"warnings,omitempty"` // the newest, bulletin.MaxWarnings at most
	// OlderWarnings counts the bulletin's warnings left out, older than
	// those shown: a bulletin edited by hand may hold any number.
	OlderWarnings int `json:"older_warnings,omitempty"`
}

// AgentSummary is one agent of the team, with what the log tells of it.
type AgentSummary struct {
	Member
	Depth   int          `json:"depth"`              // 0 for an agent of the rules, 1 for its helpers, ...
	Task    string       `json:"task,omitempty"`     // the title of the last request it was given
	LastIn  *MessageLine `json:"last_in,omitempty"`  // the last message it received
	LastOut *MessageLine `json:"last_out,omitempty"` // the last message it sent
	Locks   []string     `json:"locks,omitempty"`    // the shared resources it holds
	// Asking is how many of its permission requests wait for an answer;
	// AsksYou how many of its questions, of any kind, wait for the person's.
	Asking  int `json:"asking"`
	AsksYou int `json:"asks_you"`
	// Today is what its clients spent since midnight, when the snapshot's
	// taker asked (AddUsage).
	Today *AgentUsage `json:"usage_today,omitempty"`
}

// MessageLine is a message in a word: who, what, when.
type MessageLine struct {
	Seq   int64     `json:"seq"`
	Who   string    `json:"who"` // the sender, or the recipients
	Title string    `json:"title"`
	Time  time.Time `json:"time"`
}

// OpenRequest is a question that waits for its answer: a permission prompt
// of a helper sent up, or an ask.
type OpenRequest struct {
	Seq     int64     `json:"seq"`
	ID      string    `json:"id"`
	From    string    `json:"from"`
	To      []string  `json:"to"`
	Title   string    `json:"title"`
	Options []string  `json:"options,omitempty"`
	Time    time.Time `json:"time"`
	// Permission is what a permission prompt asks, when its record
	// vouches that it is one (mailbox.Record.PermissionPrompt); nil for
	// any other question, whatever its title or fields say. Only a
	// permission prompt is answered allow, deny, always or never with a
	// key or a button.
	Permission *mailbox.Permission `json:"permission,omitempty"`
	// Covers is what an always or a never to a permission prompt covers,
	// for people: "Bash(npm *)".
	Covers string `json:"covers,omitempty"`
}

// ForOperator reports whether the person overseeing the team may answer
// it.
func (r OpenRequest) ForOperator() bool { return slices.Contains(r.To, mailbox.Operator) }

// NeedsYou reports whether the agent waits for someone: at a permission
// prompt, with a permission request unanswered or a question to the person,
// idle with urgent mail, at its client's usage limit, or over its budget.
func (a AgentSummary) NeedsYou() bool {
	switch a.State {
	case conversation.Waiting, conversation.Limited, StateOverBudget:
		return true
	}
	return a.Asking > 0 || a.AsksYou > 0 || a.State == conversation.Idle && a.Urgent > 0
}

// Snapshot takes a snapshot of the team, reading the last logTail records
// of the log.
func (d *Desk) Snapshot(ctx context.Context, logTail int) (*Snapshot, error) {
	members, err := d.Team(ctx)
	if err != nil {
		return nil, err
	}
	log, _, err := d.Log(LogFilter{Last: logTail})
	if err != nil {
		return nil, err
	}
	at := time.Now()
	// A bulletin that does not read leaves the team shown without its
	// status, warnings and locks.
	b, err := bulletin.Of(d.ws).Read()
	if err != nil {
		b = nil
	}
	return SnapshotOf(at, members, log, b), nil
}

// SnapshotOf is the snapshot at of a team whose members are members, from
// the last records of its log and its bulletin b (nil when it could not be
// read).
func SnapshotOf(at time.Time, members []Member, log []mailbox.Record, b *bulletin.Bulletin) *Snapshot {
	s := &Snapshot{At: at, Log: log, Requests: openRequests(log)}
	if b == nil {
		s.Agents = agentsOf(members, log, s.Requests, nil)
		return s
	}
	s.Status, s.Phase = b.SystemStatus, b.CurrentPhase
	newest, older := bulletin.NewestWarnings(b.Warnings)
	for _, w := range newest {
		s.Warnings = append(s.Warnings, w.Text)
	}
	s.OlderWarnings = older
	s.Agents = agentsOf(members, log, s.Requests, b.SharedResources)
	return s
}

// openRequests are the questions among records that no later record
// answers and that are the person's to see: permission questions sent up,
// and any question asked of the operator.
func openRequests(log []mailbox.Record) []OpenRequest {
	answered := make(map[string]bool)
	for _, rec := range log {
		if rec.Answers != "" {
			answered[rec.Answers] = true
		}
	}
	var out []OpenRequest
	for _, rec := range log {
		m := rec.Message
		if m.Type != mailbox.TypeRequest || !m.RequiresResponse || answered[m.ID] || len(rec.Delivered) == 0 {
			continue
		}
		r := OpenRequest{Seq: rec.Seq, ID: m.ID, From: m.From, To: rec.Delivered, Title: m.Title, Options: m.Options(), Time: rec.Time}
		if p, ok := rec.PermissionPrompt(); ok {
			r.Permission, r.Covers = &p, approvals.Describe(p.Tool, p.Rule)
		}
		if r.Permission != nil || r.ForOperator() {
			out = append(out, r)
		}
	}
	return out
}

// agentsOf adds to the members what the log and the locks tell of each,
// and orders them as a tree.
func agentsOf(members []Member, log []mailbox.Record, open []OpenRequest, locks map[string]bulletin.Lock) []AgentSummary {
	byName := make(map[string]*AgentSummary, len(members))
	agents := make([]AgentSummary, len(members))
	for i, m := range members {
		agents[i] = AgentSummary{Member: m}
		byName[m.Name] = &agents[i]
	}
	for _, rec := range log {
		m := rec.Message
		line := &MessageLine{Seq: rec.Seq, Title: m.Title, Time: rec.Time}
		if a, ok := byName[m.From]; ok && m.From != mailbox.System {
			out := *line
			out.Who = strings.Join(rec.Delivered, ", ")
			a.LastOut = &out
		}
		for _, to := range rec.Delivered {
			if a, ok := byName[to]; ok {
				in := *line
				in.Who = m.From
				a.LastIn = &in
				if m.Type == mailbox.TypeRequest && !rec.Permission {
					a.Task = m.Title
				}
			}
		}
	}
	for _, r := range open {
		a, ok := byName[r.From]
		if ok && r.Permission != nil {
			a.Asking++
		}
		if ok && r.ForOperator() {
			a.AsksYou++
		}
	}
	for resource, l := range locks {
		if a, ok := byName[l.Holder]; ok {
			a.Locks = append(a.Locks, resource)
		}
	}
	for i := range agents {
		slices.Sort(agents[i].Locks)
	}
	return asTree(agents)
}

// asTree orders agents under their parents, depth first: among siblings,
// those that need you (or whose helpers do) first, then in the team's
// order.
func asTree(agents []AgentSummary) []AgentSummary {
	places := Tree(agents, func(a AgentSummary) string { return a.Name }, func(a AgentSummary) string { return a.Parent }, AgentSummary.NeedsYou)
	out := make([]AgentSummary, len(places))
	for i, p := range places {
		out[i] = agents[p.Index]
		out[i].Depth = p.Depth
	}
	return out
}
