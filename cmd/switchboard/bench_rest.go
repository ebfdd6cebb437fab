package main

import (
	"fmt"
	"io"
	"time"

	"switchboard/bench"
)

// printRestTable writes each team at rest beside tmux alone with the same
// panes (and the baseline binary's, when measured), its parts, and an idle
// MCP server beside a program that waits on its input.
func printRestTable(w io.Writer, r *bench.Result) error {
	rest := r.Rest
	b := rest.Baseline
	// The baseline's column is there only when it was measured.
	row := func(checkRow, name, floor, before, now string) []string {
		cells := []string{name, floor}
		if b != nil {
			cells = append(cells, before)
		}
		target, mark := checkOf(r, checkRow)
		return append(cells, now, target, mark)
	}
	head := row("", fmt.Sprintf("%d agents at rest, %s, every process summed", rest.Agents, rest.Window.Round(time.Second)), "floor", "", "switchboard")
	head[len(head)-2] = "target"
	aligned := []bool{false, true, true, false, false}
	if b != nil {
		head[2] = "baseline"
		aligned = []bool{false, true, true, true, false, false}
	}
	t := &benchTable{rightAligned: aligned}
	t.add(head...)
	pct := func(p float64) string { return fmt.Sprintf("%.3f %%", p) }
	parts := func(rt bench.RestTeam) [2]string {
		return [2]string{fmt.Sprintf("%.3f / %.3f / %.3f %%", rt.Master, rt.Console, rt.Server), fmt.Sprintf("%.3f / %.3f %%", rt.Programs, rt.MCP)}
	}
	for _, team := range []struct {
		name, row string
		now, was  func(*bench.RestResult) bench.RestTeam
	}{
		{"up, agents without hooks (cat), an MCP server each (floor: tmux alone, the same panes)", bench.RowRestHookless,
			func(r *bench.RestResult) bench.RestTeam { return r.Hookless }, func(r *bench.RestResult) bench.RestTeam { return r.Baseline.Hookless }},
		{"up, shells with the prompt hook, an MCP server each (floor: the same)", bench.RowRestHooks,
			func(r *bench.RestResult) bench.RestTeam { return r.Hooks }, func(r *bench.RestResult) bench.RestTeam { return r.Baseline.Hooks }},
	} {
		now, was, wasParts := team.now(rest), "", [2]string{}
		if b != nil {
			before := team.was(rest)
			was, wasParts = pct(before.Team), parts(before)
		}
		t.add(row(team.row, fmt.Sprintf("%s (%d processes)", team.name, now.Processes), pct(now.Floor), was, pct(now.Team))...)
		t.add(row("", "  master with its tmux clients / console / tmux server", "", wasParts[0], parts(now)[0])...)
		t.add(row("", "  agents' programs / MCP servers", "", wasParts[1], parts(now)[1])...)
	}
	m, was := rest.MCP, ""
	if b != nil {
		was = fmt.Sprintf("%.4f %%", b.MCP)
	}
	t.add(row(bench.RowRestMCP, fmt.Sprintf("an idle switchboard mcp, of %d side by side (floor: a cat that waits on its input)", m.Servers), fmt.Sprintf("%.4f %%", m.Floor), was, fmt.Sprintf("%.4f %%", m.Each))...)
	return t.write(w)
}
