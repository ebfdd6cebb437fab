package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/mailbox"
)

func newShowCmd(io *streams, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show SEQ | SEQ-SEQ | ID",
		Short: "Print logged messages in full, by seq, range of seqs, or id",
		Long: `Print the full content of logged messages: one by its seq (the number in
switchboard log), a range such as 5-8, or one by its id (a unique prefix is
enough). Oversight agents and the operator may read every message; other
agents only the messages they sent or were sent. A refusal exits 3.`,
		Example: `  switchboard show 5
  switchboard show 5-8 --as master_agent
  switchboard show 0193a7c2 --json`,
		Args: args(1, -1),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runShow(io, g, a)
		},
	}
	return cmd
}

func runShow(io *streams, g *globals, selectors []string) error {
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	records, _, err := mailbox.ReadLog(ws.store.LogPath(), 0)
	if err != nil {
		return err
	}
	var chosen []mailbox.Record
	for _, sel := range selectors {
		found, err := selectRecords(records, sel)
		var partial *partialRange
		if errors.As(err, &partial) {
			fmt.Fprintln(io.errOut, "note: "+partial.Error())
		} else if err != nil {
			return err
		}
		chosen = append(chosen, found...)
	}
	var shown []*mailbox.Message
	var routed []*mailbox.Record
	var refused []string
	for i := range chosen {
		rec := &chosen[i]
		if !ws.rules.MayRead(ws.agent, rec) {
			refused = append(refused, strconv.FormatInt(rec.Seq, 10))
			continue
		}
		m := *rec.Message
		m.Seq = rec.Seq
		if len(rec.Delivered) > 0 {
			m.DeliveredAt = rec.Time
		}
		// Scripts see what routing did too.
		m.Extra = maps.Clone(m.Extra)
		if m.Extra == nil {
			m.Extra = map[string]json.RawMessage{}
		}
		m.Extra["status"], _ = json.Marshal(rec.Status)
		if len(rec.Blocked) > 0 {
			m.Extra["blocked"], _ = json.Marshal(rec.Blocked)
		}
		shown = append(shown, &m)
		routed = append(routed, rec)
	}
	if g.json {
		if err := writeJSON(io.out, nonNil(shown)); err != nil {
			return err
		}
	} else {
		for i, m := range shown {
			if i > 0 {
				fmt.Fprintln(io.out, strings.Repeat("─", 60))
			}
			printRouted(io.out, m, routed[i])
		}
	}
	if len(refused) > 0 {
		return refusedError(fmt.Errorf("%s may not read message %s: only its sender, its recipients and oversight agents (%s) may",
			ws.agent, strings.Join(refused, ", "), overseers(ws)))
	}
	return nil
}

func overseers(ws *caller) string {
	var names []string
	for _, n := range ws.rules.Oversight {
		names = append(names, n.Value)
	}
	if len(names) == 0 {
		return "none named"
	}
	return strings.Join(names, ", ")
}

var errNoSuchSeq = errors.New("not in the log")

// partialRange says a range ran past the end of the log: what exists is
// shown, with a note.
type partialRange struct {
	sel  string
	last int64
}

func (p *partialRange) Error() string {
	return fmt.Sprintf("the log ends at message %d: %s is shown as far as it goes", p.last, p.sel)
}

// selectRecords finds the records a selector names: "5", "5-8", or an id.
func selectRecords(records []mailbox.Record, sel string) ([]mailbox.Record, error) {
	if from, to, isRange := strings.Cut(sel, "-"); isRange && isNumber(from) && isNumber(to) {
		lo, _ := strconv.ParseInt(from, 10, 64)
		hi, _ := strconv.ParseInt(to, 10, 64)
		if lo > hi {
			return nil, usageError("range %s runs backwards; write it as %d-%d", sel, hi, lo)
		}
		var out []mailbox.Record
		for _, r := range records {
			if r.Seq >= lo && r.Seq <= hi {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("messages %s: %w (it has %d)", sel, errNoSuchSeq, len(records))
		}
		if last := out[len(out)-1].Seq; last < hi {
			return out, &partialRange{sel: sel, last: last}
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
		return nil, fmt.Errorf("message %d: %w (it has %d)", seq, errNoSuchSeq, len(records))
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
