package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/desk"
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
	ws, rulesErr, err := openReading(g)
	if err != nil {
		return err
	}
	warnBrokenRules(io, ws, rulesErr)
	found, err := ws.desk().Show(selectors)
	if errors.Is(err, desk.ErrBackwardsRange) {
		return usageError("%v", err)
	}
	if err != nil {
		return err
	}
	for _, note := range found.Notes {
		fmt.Fprintln(io.errOut, "note: "+note)
	}
	shown := make([]*mailbox.Message, 0, len(found.Records))
	for i := range found.Records {
		rec := &found.Records[i]
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
	}
	if g.json {
		if err := writeJSON(io.out, shown); err != nil {
			return err
		}
	} else {
		for i, m := range shown {
			if i > 0 {
				fmt.Fprintln(io.out, strings.Repeat("─", 60))
			}
			printRouted(io.out, m, &found.Records[i])
		}
	}
	if len(found.Refused) > 0 {
		seqs := make([]string, len(found.Refused))
		for i, seq := range found.Refused {
			seqs[i] = strconv.FormatInt(seq, 10)
		}
		return refusedError(fmt.Errorf("%s may not read message %s: only its sender, its recipients and oversight agents (%s) may",
			ws.agent, strings.Join(seqs, ", "), ws.rules.OversightNames()))
	}
	return nil
}
