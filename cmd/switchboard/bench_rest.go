package main

import (
	"fmt"
	"io"
	"time"

	"switchboard/bench"
)

// printRestTable writes each team at rest beside tmux alone with the same
// panes, its parts, and an idle MCP server beside a program that waits on
// its input.
func printRestTable(w io.Writer, r *bench.Result) error {
	rest := r.Rest
	t := &benchTable{rightAligned: []bool{false, true, true, false, false}}
	t.add(fmt.Sprintf("%d agents at rest, %s, every process summed", rest.Agents, rest.Window.Round(time.Second)), "floor", "switchboard", "target", "")
	pct := func(p float64) string { return fmt.Sprintf("%.3f %%", p) }
	for _, team := range []struct {
		name, row string
		rt        bench.RestTeam
	}{
		{"up, agents without hooks (cat), an MCP server each (floor: tmux alone, the same panes)", bench.RowRestHookless, rest.Hookless},
		{"up, shells with the prompt hook, an MCP server each (floor: the same)", bench.RowRestHooks, rest.Hooks},
	} {
		rt := team.rt
		t.addChecked(r, team.row, fmt.Sprintf("%s (%d processes)", team.name, rt.Processes), pct(rt.Floor), pct(rt.Team))
		t.add("  master with its tmux clients / console / tmux server", "", fmt.Sprintf("%.3f / %.3f / %.3f %%", rt.Master, rt.Console, rt.Server), "", "")
		t.add("  agents' programs / MCP servers", "", fmt.Sprintf("%.3f / %.3f %%", rt.Programs, rt.MCP), "", "")
	}
	m := rest.MCP
	t.addChecked(r, bench.RowRestMCP, fmt.Sprintf("an idle switchboard mcp, of %d side by side (floor: a cat that waits on its input)", m.Servers), fmt.Sprintf("%.4f %%", m.Floor), fmt.Sprintf("%.4f %%", m.Each))
	return t.write(w)
}
