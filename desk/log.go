package desk

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"switchboard/mailbox"
)

// LogFilter narrows the audit log: to the messages from or to About (and
// those the rules kept from it), to the blocked ones.
type LogFilter struct {
	About   string
	Blocked bool
}

// Log returns the records of the audit log the desk's agent may read
// (oversight agents and the operator every one, others their own), as
// filter narrows them, and the log's end for reading on from there.
func (d *Desk) Log(filter LogFilter) (records []mailbox.Record, end int64, err error) {
	if d.rules == nil {
		return nil, 0, d.noRules()
	}
	if filter.About != "" && !d.rules.Knows(filter.About) {
		return nil, 0, NotAnAgent(d.rules, filter.About)
	}
	all, end, err := mailbox.ReadLog(d.store().LogPath(), 0)
	if err != nil {
		return nil, 0, err
	}
	return d.Filter(all, filter), end, nil
}

// Filter keeps the records the desk's agent may read that filter selects.
func (d *Desk) Filter(records []mailbox.Record, filter LogFilter) []mailbox.Record {
	var out []mailbox.Record
	for i := range records {
		rec := &records[i]
		switch {
		case !d.rules.MayRead(d.agent, rec):
		case filter.About != "" && !rec.Involves(filter.About) && !blockedTo(rec, filter.About):
		case filter.Blocked && len(rec.Blocked) == 0:
		default:
			out = append(out, *rec)
		}
	}
	return out
}

// blockedTo reports whether the rules kept the message from agent: an
// overseer filtering by agent sees the attempts to reach it too.
func blockedTo(rec *mailbox.Record, agent string) bool {
	for _, b := range rec.Blocked {
		if b.To == agent {
			return true
		}
	}
	return false
}

// Errors of Show.
var (
	// ErrNoSuchSeq is a seq the log does not have.
	ErrNoSuchSeq = errors.New("not in the log")
	// ErrBackwardsRange is a range like 8-5.
	ErrBackwardsRange = errors.New("runs backwards")
)

// PartialRange says a range ran past the end of the log: what exists is
// shown.
type PartialRange struct {
	Sel  string
	Last int64
}

func (p *PartialRange) Error() string {
	return fmt.Sprintf("the log ends at message %d: %s is shown as far as it goes", p.Last, p.Sel)
}

// Shown is what Show found: the records the agent may read, the seqs it
// may not, and notes on ranges that ran past the log's end.
type Shown struct {
	Records []mailbox.Record
	Refused []int64
	Notes   []string
}

// Show finds logged messages by selector: a seq ("5"), a range ("5-8") or
// an id (a unique prefix is enough). The agent may read its own messages;
// oversight agents and the operator every one.
func (d *Desk) Show(selectors []string) (Shown, error) {
	if d.rules == nil {
		return Shown{}, d.noRules()
	}
	records, _, err := mailbox.ReadLog(d.store().LogPath(), 0)
	if err != nil {
		return Shown{}, err
	}
	var s Shown
	for _, sel := range selectors {
		found, err := selectRecords(records, sel)
		var partial *PartialRange
		if errors.As(err, &partial) {
			s.Notes = append(s.Notes, partial.Error())
		} else if err != nil {
			return Shown{}, err
		}
		for _, rec := range found {
			if d.rules.MayRead(d.agent, &rec) {
				s.Records = append(s.Records, rec)
			} else {
				s.Refused = append(s.Refused, rec.Seq)
			}
		}
	}
	return s, nil
}

// selectRecords finds the records a selector names: "5", "5-8", or an id.
func selectRecords(records []mailbox.Record, sel string) ([]mailbox.Record, error) {
	if from, to, isRange := strings.Cut(sel, "-"); isRange && isNumber(from) && isNumber(to) {
		lo, _ := strconv.ParseInt(from, 10, 64)
		hi, _ := strconv.ParseInt(to, 10, 64)
		if lo > hi {
			return nil, fmt.Errorf("range %s %w; write it as %d-%d", sel, ErrBackwardsRange, hi, lo)
		}
		var out []mailbox.Record
		for _, r := range records {
			if r.Seq >= lo && r.Seq <= hi {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("messages %s: %w (it has %d)", sel, ErrNoSuchSeq, len(records))
		}
		if last := out[len(out)-1].Seq; last < hi {
			return out, &PartialRange{Sel: sel, Last: last}
		}
		return out, nil
	}
	if isNumber(sel) {
		seq, _ := strconv.ParseInt(sel, 10, 64)
		for _, r := range records {
			if r.Seq == seq {
				return []mailbox.Record{r}, nil
			}
		}
		return nil, fmt.Errorf("message %d: %w (it has %d)", seq, ErrNoSuchSeq, len(records))
	}
	var out []mailbox.Record
	for _, r := range records {
		if r.Message.ID == sel {
			return []mailbox.Record{r}, nil
		}
		if strings.HasPrefix(r.Message.ID, sel) {
			out = append(out, r)
		}
	}
	switch len(out) {
	case 0:
		return nil, fmt.Errorf("no logged message has id %q; give a seq, a range like 5-8, or an id", sel)
	case 1:
		return out, nil
	default:
		return nil, fmt.Errorf("id prefix %q matches %d messages; give more of it", sel, len(out))
	}
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 63)
	return err == nil
}
