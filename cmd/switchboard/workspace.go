package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"switchboard/desk"
	"switchboard/hooks"
	"switchboard/lifecycle"
	"switchboard/mailbox"
	"switchboard/rules"
	"switchboard/workspace"
)

// caller is what most commands need: who is asking, and the workspace with
// its rules and its mailboxes.
type caller struct {
	folder *workspace.Workspace
	root   string
	rules  *rules.Rules
	store  *mailbox.Store
	agent  string
	// rulesErr is why the rules file does not load (openReading): rules
	// are then nil, or those the master last loaded.
	rulesErr error
}

// openWorkspace finds the workspace and loads its rules. The caller's agent
// name must be part of the team.
func openWorkspace(g *globals) (*caller, error) {
	folder, err := findWorkspace(g)
	if err != nil {
		return nil, err
	}
	r, err := rules.LoadTeam(folder)
	if err != nil {
		return nil, err
	}
	agent, err := whoIsAsking(g, folder, r)
	if err != nil {
		return nil, err
	}
	if !r.Knows(agent) {
		return nil, notAnAgent(r, agent, "(check --as or SWITCHBOARD_AGENT)")
	}
	return &caller{folder: folder, root: folder.Root, rules: r, store: folder.Store, agent: agent}, nil
}

// openReading is openWorkspace for the commands that read (their mail, the
// log, the team) or stop something: a rules file that does not load (being
// edited, broken) keeps no one from them. They go on from the rules the
// master last loaded, which it keeps in the workspace; where it kept none,
// rules is nil and the caller is known by its mailbox. rulesErr says why
// the file does not load.
func openReading(g *globals) (ws *caller, rulesErr error, err error) {
	folder, err := findWorkspace(g)
	if err != nil {
		return nil, nil, err
	}
	r, rulesErr, err := rules.LoadTeamOrLastLoaded(folder)
	var broken *rules.Error
	if err != nil && !errors.As(err, &broken) {
		return nil, nil, err
	}
	agent, err := whoIsAsking(g, folder, r)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case r != nil && !r.Knows(agent):
		return nil, nil, notAnAgent(r, agent, "(check --as or SWITCHBOARD_AGENT)")
	case r == nil && agent != mailbox.Operator && !folder.HasMailbox(agent):
		return nil, nil, rulesErr
	}
	return &caller{folder: folder, root: folder.Root, rules: r, store: folder.Store, agent: agent, rulesErr: rulesErr}, rulesErr, nil
}

// notAnAgent is the usage error for a name that is not one of the team's,
// with the name it may have meant; next says where the name came from.
func notAnAgent(r *rules.Rules, name, next string) error {
	msg := desk.NotAnAgent(r, name).Error()
	if next != "" {
		msg += " " + next
	}
	return usageError("%s", msg)
}

// warnBrokenRules tells the person, in one line beside what a command did,
// that the rules file does not load, and what the command went on from.
func warnBrokenRules(io *streams, ws *caller, rulesErr error) {
	if rulesErr == nil {
		return
	}
	from := "without the rules"
	if ws.rules != nil {
		from = "from the rules the master last loaded"
	}
	fmt.Fprintln(io.errOut, runnable(fmt.Sprintf("warning: %v; going on %s; send, spawn and up refuse until `switchboard rules check` passes", rulesErr, from), ws.folder.Binary()))
}

// findWorkspace is the workspace of --root, else SWITCHBOARD_ROOT, else the
// nearest folder up from here that holds a rules file.
func findWorkspace(g *globals) (*workspace.Workspace, error) {
	root := g.root
	if root == "" {
		root = os.Getenv("SWITCHBOARD_ROOT")
	}
	if root != "" {
		return workspace.Open(root)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("find workspace: %w", err)
	}
	return workspace.Find(wd)
}

// desk is the caller's desk: what it does with its mail. The agents it
// spawns are wired as up wires the team's.
func (w *caller) desk() *desk.Desk {
	var d *desk.Desk
	switch {
	case w.rules == nil:
		d = desk.WithoutRules(w.folder, w.agent, w.rulesErr)
	case w.rulesErr != nil:
		d = desk.WithLoadedRules(w.folder, w.rules, w.agent, w.rulesErr)
	default:
		d = desk.New(w.folder, w.rules, w.agent)
	}
	return d.WithWiring(wireHooks)
}

// wireHooks fits an agent spawned in ws with its client's hooks.
func wireHooks(ws *workspace.Workspace, noMCP bool) lifecycle.Wirer {
	return hooks.Wirer{Workspace: ws, NoMCP: noMCP}
}

// masterRunning reports the pid of the workspace's master, if one runs.
func (w *caller) masterRunning() (int, bool) {
	return w.folder.MasterRunning()
}

// whoIsAsking is the agent a command acts as (see actingAs). --as naming
// another agent inside a team pane is refused, and the attempt goes to the
// overseers, so that the audit log shows who tried.
func whoIsAsking(g *globals, folder *workspace.Workspace, r *rules.Rules) (string, error) {
	agent, other := actingAs(g, folder)
	if other != "" {
		desk.ReportAttempt(folder.Store, r, agent, "tried to act as "+other, "From its own pane, "+agent+" ran: switchboard "+strings.Join(os.Args[1:], " "))
		return "", refusedError(fmt.Errorf("this pane is %s's: acting as %s is refused here (the attempt is logged)", agent, other))
	}
	return agent, nil
}

// actingAs is the agent a command line acts as. Inside a team pane it is
// that pane's agent, whatever the environment says; other is then the
// agent --as or SWITCHBOARD_AGENT names instead, if any. Outside the panes
// the person names whom they act as with --as or SWITCHBOARD_AGENT, and is
// the operator otherwise. It reports nothing, so that completion, which
// runs at every Tab, may ask it too.
func actingAs(g *globals, folder *workspace.Workspace) (agent, other string) {
	claimed := g.as
	if claimed == "" {
		claimed = os.Getenv("SWITCHBOARD_AGENT") // up sets it to the pane's own
	}
	if pane, ok := lifecycle.PaneAgent(folder); ok {
		if claimed == pane {
			claimed = ""
		}
		return pane, claimed
	}
	if claimed == "" {
		return mailbox.Operator, ""
	}
	return claimed, ""
}
