package desk

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"switchboard/mailbox"
)

// LogFilter narrows the audit log: to the messages from or to About (and
// those the rules kept from it), to the blocked ones, to those logged at or
// after Since, to the last Last of those it keeps.
type LogFilter struct {
	About   string
	Blocked bool
	Since   time.Time
	Last    int // 0 for all
}

// Log returns the records of the audit log the desk's agent may read
// (oversight agents and the operator every one, others their own), as
// filter narrows them, and the log's end for reading on from there. It
// reads the log from where the filter's first record may be, not from its
// start.
func (d *Desk) Log(filter LogFilter) (records []mailbox.Record, end int64, err error) {
	if filter.Last <= 0 {
		end, err = d.EachLog(filter, func(rec mailbox.Record) { records = append(records, rec) })
		return records, end, err
	}
	if err := d.checkFilter(filter); err != nil {
		return nil, 0, err
	}
	// The last records the filter keeps: a window of the log's end, wider
	// each time until it holds enough or is the whole log.
	path := d.store().LogPath()
	for window := int64(filter.Last); ; window *= 4 {
		place, err := mailbox.SeekLogSeq(path, 0)
		if err != nil {
			return nil, 0, err
		}
		from := max(place.LastSeq-window+1, 1)
		start, err := d.logStart(filter, from)
		if err != nil {
			return nil, 0, err
		}
		records = records[:0]
		end, err = mailbox.EachLogRecord(path, start, func(rec mailbox.Record) bool {
			if d.keeps(&rec, filter) {
				records = append(records, rec)
			}
			return true
		})
		if err != nil {
			return nil, 0, err
		}
		if len(records) >= filter.Last || from == 1 {
			return records[max(len(records)-filter.Last, 0):], end, nil
		}
	}
}

// EachLog calls fn with each record Log would return, as it reads them,
// and returns the log's end.
func (d *Desk) EachLog(filter LogFilter, fn func(mailbox.Record)) (end int64, err error) {
	if err := d.checkFilter(filter); err != nil {
		return 0, err
	}
	start, err := d.logStart(filter, 1)
	if err != nil {
		return 0, err
	}
	return mailbox.EachLogRecord(d.store().LogPath(), start, func(rec mailbox.Record) bool {
		if d.keeps(&rec, filter) {
			fn(rec)
		}
		return true
	})
}

// checkFilter refuses a filter the desk cannot apply.
func (d *Desk) checkFilter(filter LogFilter) error {
	if d.rules == nil {
		return d.noRules()
	}
	if filter.About != "" && !d.rules.Knows(filter.About) {
		return NotAnAgent(d.rules, filter.About)
	}
	return nil
}

// logStart is where the log is read from for the records numbered from on
// that the filter may keep.
func (d *Desk) logStart(filter LogFilter, from int64) (int64, error) {
	path := d.store().LogPath()
	var start int64
	if from > 1 {
		place, err := mailbox.SeekLogSeq(path, from)
		if err != nil {
			return 0, err
		}
		start = place.Offset
	}
	if !filter.Since.IsZero() {
		place, err := mailbox.SeekLogTime(path, filter.Since)
		if err != nil {
			return 0, err
		}
		start = max(start, place.Offset)
	}
	return start, nil
}

// Filter keeps the records the desk's agent may read that filter selects
// (all but Last).
func (d *Desk) Filter(records []mailbox.Record, filter LogFilter) []mailbox.Record {
	var out []mailbox.Record
	for i := range records {
		if d.keeps(&records[i], filter) {
			out = append(out, records[i])
		}
	}
	return out
}

// keeps reports whether the desk's agent may read rec and filter selects
// it (all but Last).
func (d *Desk) keeps(rec *mailbox.Record, filter LogFilter) bool {
	switch {
	case !d.rules.MayRead(d.agent, rec):
	case filter.About != "" && !rec.Involves(filter.About) && !blockedTo(rec, filter.About):
	case filter.Blocked && len(rec.Blocked) == 0:
	case !filter.Since.IsZero() && rec.Time.Before(filter.Since):
	default:
		return true
	}
	return false
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
	// ErrNoSuchID is an id no logged message has, nor starts with.
	ErrNoSuchID = errors.New("no logged message has id")
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
// oversight agents and the operator every one. A seq or a range is read
// where it is in the log; an id is looked for in the whole log.
func (d *Desk) Show(selectors []string) (Shown, error) {
	if d.rules == nil {
		return Shown{}, d.noRules()
	}
	var s Shown
	for _, sel := range selectors {
		found, err := d.selectRecords(sel)
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
func (d *Desk) selectRecords(sel string) ([]mailbox.Record, error) {
	from, to, isRange := strings.Cut(sel, "-")
	if !isRange || !isNumber(from) || !isNumber(to) {
		if !isNumber(sel) {
			return d.selectByID(sel)
		}
		from, to = sel, sel
	}
	lo, _ := strconv.ParseInt(from, 10, 64)
	hi, _ := strconv.ParseInt(to, 10, 64)
	if lo > hi {
		return nil, fmt.Errorf("range %s %w; write it as %d-%d", sel, ErrBackwardsRange, hi, lo)
	}
	path := d.store().LogPath()
	place, err := mailbox.SeekLogSeq(path, lo)
	if err != nil {
		return nil, err
	}
	var out []mailbox.Record
	if _, err := mailbox.EachLogRecord(path, place.Offset, func(rec mailbox.Record) bool {
		if rec.Seq > hi {
			return false
		}
		if rec.Seq >= lo {
			out = append(out, rec)
		}
		return true
	}); err != nil {
		return nil, err
	}
	switch {
	case len(out) == 0 && lo == hi:
		return nil, fmt.Errorf("message %d: %w (it has %d)", lo, ErrNoSuchSeq, place.LastSeq)
	case len(out) == 0:
		return nil, fmt.Errorf("messages %s: %w (it has %d)", sel, ErrNoSuchSeq, place.LastSeq)
	case out[len(out)-1].Seq < hi:
		return out, &PartialRange{Sel: sel, Last: out[len(out)-1].Seq}
	}
	return out, nil
}

// selectByID finds the record whose message has the id, or the one whose
// id starts with it.
func (d *Desk) selectByID(sel string) ([]mailbox.Record, error) {
	var out []mailbox.Record
	if _, err := mailbox.EachLogRecord(d.store().LogPath(), 0, func(rec mailbox.Record) bool {
		if rec.Message.ID == sel {
			out = []mailbox.Record{rec}
			return false
		}
		if strings.HasPrefix(rec.Message.ID, sel) {
			out = append(out, rec)
		}
		return true
	}); err != nil {
		return nil, err
	}
	switch {
	case len(out) == 0:
		return nil, fmt.Errorf("%w %q; give a seq, a range like 5-8, or an id", ErrNoSuchID, sel)
	case len(out) > 1 && out[0].Message.ID != sel:
		return nil, fmt.Errorf("id prefix %q matches %d messages; %w", sel, len(out), mailbox.ErrAmbiguousID)
	}
	return out[:1], nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 63)
	return err == nil
}
