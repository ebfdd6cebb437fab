package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"switchboard/desk"
	"switchboard/internal/clientusage"
)

type usageOptions struct {
	since string
	by    string
}

func newUsageCmd(io *streams, g *globals) *cobra.Command {
	opts := &usageOptions{}
	cmd := &cobra.Command{
		Use:   "usage [--since today|week|all|DURATION] [--by agent|profile]",
		Short: "Tokens and an estimate of the cost, per agent and for the team",
		Long: `Show what each agent's clients spent: tokens in, out, read from and
written to the cache, from the clients' own records (Claude Code's
transcripts, Codex CLI's session logs, Gemini CLI's chat logs), and an
estimate of the cost by a price table of list prices per million tokens. Put your own prices in
prices.yaml at the workspace's root, by model name prefix, for example:

  claude-opus: {in: 15, out: 75, cache_read: 1.5, cache_write: 18.75}
  gpt-5: {in: 1.25, out: 10, cache_read: 0.125}

Nothing is read at rest: the records are read when you ask.`,
		Example: `  switchboard usage
  switchboard usage --since week --by profile
  switchboard usage --since 2h --json`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runUsage(io, g, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.since, "since", "today", "today, week (the last 7 days), all, or a duration such as 2h")
	f.StringVar(&opts.by, "by", "agent", "agent or profile")
	return cmd
}

func runUsage(io *streams, g *globals, opts *usageOptions) error {
	since, err := usageSince(opts.since, time.Now())
	if err != nil {
		return usageError("%v", err)
	}
	if opts.by != "agent" && opts.by != "profile" {
		return usageError("--by takes agent or profile, not %q", opts.by)
	}
	ws, rulesErr, err := openReading(g)
	if err != nil {
		return err
	}
	warnBrokenRules(io, ws, rulesErr)
	rows, err := ws.desk().Usage(since, nil)
	if err != nil {
		return err
	}
	if opts.by == "profile" {
		rows = byProfile(rows)
	}
	if g.json {
		return writeJSON(io.out, rows)
	}
	tw := io.table(strings.ToUpper(opts.by), "IN", "OUT", "CACHE READ", "CACHE WRITE", "COST (USD, EST.)")
	var total desk.AgentUsage
	total.Models = clientusage.Usage{}
	for _, r := range rows {
		name := r.Agent
		if opts.by == "profile" {
			name = r.Profile
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", name, r.Tokens.In, r.Tokens.Out, r.Tokens.CacheRead, r.Tokens.CacheWrite, costText(r))
		total.Models.Merge(r.Models)
		total.Cost += r.Cost
		total.Unpriced = append(total.Unpriced, r.Unpriced...)
	}
	total.Tokens = total.Models.Total()
	fmt.Fprintf(tw, "team\t%d\t%d\t%d\t%d\t%s\n", total.Tokens.In, total.Tokens.Out, total.Tokens.CacheRead, total.Tokens.CacheWrite, costText(total))
	return tw.Flush()
}

// costText is a row's cost, saying when a model had no price.
func costText(r desk.AgentUsage) string {
	text := fmt.Sprintf("%.4f", r.Cost)
	if len(r.Unpriced) > 0 {
		slices.Sort(r.Unpriced)
		text += " (no price for " + strings.Join(slices.Compact(r.Unpriced), ", ") + ": add it to prices.yaml)"
	}
	return text
}

// byProfile sums the rows of each profile.
func byProfile(rows []desk.AgentUsage) []desk.AgentUsage {
	sums := map[string]*desk.AgentUsage{}
	for _, r := range rows {
		s, ok := sums[r.Profile]
		if !ok {
			s = &desk.AgentUsage{Agent: r.Profile, Profile: r.Profile, Models: clientusage.Usage{}}
			sums[r.Profile] = s
		}
		s.Models.Merge(r.Models)
		s.Cost += r.Cost
		s.Unpriced = append(s.Unpriced, r.Unpriced...)
	}
	var out []desk.AgentUsage
	for _, name := range slices.Sorted(maps.Keys(sums)) {
		s := sums[name]
		s.Tokens = s.Models.Total()
		out = append(out, *s)
	}
	return out
}

// usageSince is when the period --since names begins.
func usageSince(text string, now time.Time) (time.Time, error) {
	switch text {
	case "today":
		y, m, d := now.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, now.Location()), nil
	case "week":
		return now.AddDate(0, 0, -7), nil
	case "all":
		return time.Time{}, nil
	}
	d, err := time.ParseDuration(text)
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("--since takes today, week, all or a duration such as 2h, not %q", text)
	}
	return now.Add(-d), nil
}
