package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/hooks"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/rules"
)

// completing says whether the command line is the shell asking cobra for
// completions. Only then is the tree taught them: the hooks start this
// binary before every prompt, and teaching costs a third of building the
// tree.
func completing(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// completion teaches the shell completion cobra generates (switchboard
// completion bash|zsh|fish) the team it runs in: agent names where a
// command takes an agent, message ids where it takes a message, and the
// values of the flags that have a fixed set.
func completion(root *cobra.Command, g *globals) {
	agentsFunc := func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return teamNames(g), cobra.ShellCompDirectiveNoFileComp
	}
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	recipientsFunc := func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return recipients(g), cobra.ShellCompDirectiveNoFileComp
	}
	flagValues := map[string]cobra.CompletionFunc{
		"as":     agentsFunc,
		"to":     recipientsFunc,
		"parent": agentsFunc,
		"agent":  agentsFunc,
		"profile": func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return profileNames(g), cobra.ShellCompDirectiveNoFileComp
		},
		"priority": fixed(mailbox.Priorities()...),
		"type":     fixed(mailbox.Types()...),
		"kind":     fixed(hooks.WireKinds...),
	}
	formats := map[string][]string{"status": {"box", "line", "json"}, "graph": {"mermaid", "dot"}}
	agentArgs := map[string]int{"wait": 1, "close": 1, "interrupt": 1, "cancel": 1, "explain": 2}
	idArgs := map[string]mailbox.Box{"read": mailbox.Unread, "reply": mailbox.All}
	// A reply goes to the message's sender: only the messages whose sender
	// the caller may write to can be answered.
	answering := map[string]bool{"reply": true}

	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		for name, complete := range flagValues {
			if cmd.Flags().Lookup(name) != nil || cmd.PersistentFlags().Lookup(name) != nil {
				_ = cmd.RegisterFlagCompletionFunc(name, complete)
			}
		}
		if values, ok := formats[cmd.Name()]; ok {
			_ = cmd.RegisterFlagCompletionFunc("format", fixed(values...))
		}
		if n, ok := agentArgs[cmd.Name()]; ok {
			cmd.ValidArgsFunction = func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
				if len(args) >= n {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return agentsFunc(c, args, prefix)
			}
		}
		if box, ok := idArgs[cmd.Name()]; ok {
			cmd.ValidArgsFunction = func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return messageIDs(g, box, answering[cmd.Name()]), cobra.ShellCompDirectiveNoFileComp
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// teamNames are the agents of the workspace's rules; none when there is
// no workspace or its rules do not load.
func teamNames(g *globals) []string {
	ws, err := findWorkspace(g)
	if err != nil {
		return nil
	}
	r, err := rules.LoadTeam(ws)
	if err != nil {
		return nil
	}
	return r.Agents()
}

// recipients are the agents the caller may send to: those the rules let
// it reach, never itself. Offering the rest would offer a message the
// rules block.
func recipients(g *globals) []string {
	ws, err := findWorkspace(g)
	if err != nil {
		return nil
	}
	r, err := rules.LoadTeam(ws)
	if err != nil {
		return nil
	}
	sender, _ := actingAs(g, ws)
	return r.Reachable(sender)
}

// profileNames are the profiles of the workspace.
func profileNames(g *globals) []string {
	ws, err := findWorkspace(g)
	if err != nil {
		return nil
	}
	profiles, err := profile.LoadProfiles(ws.Profiles())
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(profiles))
	for name := range profiles {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// messageIDs are the ids of the caller's mail in box, each with its title
// as the description the shell shows beside it; with answering, only of
// the messages the caller may answer: from an agent it may write to.
func messageIDs(g *globals, box mailbox.Box, answering bool) []string {
	ws, err := findWorkspace(g)
	if err != nil {
		return nil
	}
	agent, _ := actingAs(g, ws)
	var r *rules.Rules
	if answering {
		if r, err = rules.LoadTeam(ws); err != nil {
			return nil
		}
	}
	entries, err := ws.Store.List(agent, box)
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		m, err := mailbox.Load(e.Path)
		if err != nil || (answering && (m.From == mailbox.System || !r.Decide(agent, m.From).Allowed)) {
			continue
		}
		ids = append(ids, m.ID+"\t"+strings.ReplaceAll(m.Title, "\t", " "))
	}
	return ids
}
