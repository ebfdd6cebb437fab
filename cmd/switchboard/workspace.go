package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"switchboard/agents"
	"switchboard/desk"
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
	// rulesErr is why rules is nil (openOwnMailbox).
	rulesErr error
}

// openWorkspace finds the workspace and loads its rules. The caller's agent
// name must be part of the team.
func openWorkspace(g *globals) (*caller, error) {
	folder, err := findWorkspace(g)
	if err != nil {
		return nil, err
	}
	r, err := folder.Rules()
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

// openOwnMailbox is openWorkspace for commands that act on the caller's own
// mailbox or stop the team: they need no rules, so a rules file that does
// not load (being edited, broken) does not keep anyone from their mail or
// from down. The caller is then known by its mailbox, and rules is nil;
// rulesErr says why.
func openOwnMailbox(g *globals) (ws *caller, rulesErr error, err error) {
	ws, err = openWorkspace(g)
	var broken *rules.Error
	if err == nil || !errors.As(err, &broken) {
		return ws, nil, err
	}
	folder, ferr := findWorkspace(g)
	if ferr != nil {
		return nil, nil, ferr
	}
	agent, aerr := whoIsAsking(g, folder, nil)
	if aerr != nil {
		return nil, nil, aerr
	}
	if agent != mailbox.Operator && !folder.HasMailbox(agent) {
		return nil, nil, err
	}
	return &caller{folder: folder, root: folder.Root, store: folder.Store, agent: agent, rulesErr: err}, err, nil
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

// warnBrokenRules tells the person, beside what a command did without the
// rules, that they do not load.
func warnBrokenRules(io *streams, ws *caller, rulesErr error) {
	if rulesErr == nil {
		return
	}
	kept := "no master runs"
	if _, running := ws.folder.MasterRunning(); running {
		kept = "the running master keeps the rules it had"
	}
	fmt.Fprintf(io.errOut, "warning: %v\n  the rules do not load: %s; send, up and master refuse until the file is fixed (`switchboard rules check` says when it is)\n", rulesErr, kept)
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

// desk is the caller's desk: what it does with its mail.
func (w *caller) desk() *desk.Desk {
	if w.rules == nil {
		return desk.WithoutRules(w.folder, w.agent, w.rulesErr)
	}
	return desk.New(w.folder, w.rules, w.agent)
}

// masterRunning reports the pid of the workspace's master, if one runs.
func (w *caller) masterRunning() (int, bool) {
	return w.folder.MasterRunning()
}

// whoIsAsking is the agent a command acts as. Inside a team pane it is that
// pane's agent, whatever the environment says; --as naming another is
// refused there, and the attempt goes to the overseers, so that the audit
// log shows who tried. Outside the panes the person names whom they act as
// with --as or SWITCHBOARD_AGENT, and is the operator otherwise.
func whoIsAsking(g *globals, folder *workspace.Workspace, r *rules.Rules) (string, error) {
	if pane, ok := agents.PaneAgent(folder); ok {
		claimed := g.as
		if claimed == "" {
			claimed = os.Getenv("SWITCHBOARD_AGENT") // up sets it to the pane's own
		}
		if claimed != "" && claimed != pane {
			reportAttempt(folder, r, pane, "tried to act as "+claimed)
			return "", refusedError(fmt.Errorf("this pane is %s's: acting as %s is refused here (the attempt is logged)", pane, claimed))
		}
		return pane, nil
	}
	agent := g.as
	if agent == "" {
		agent = os.Getenv("SWITCHBOARD_AGENT")
	}
	if agent == "" {
		agent = mailbox.Operator
	}
	return agent, nil
}

// reportAttempt tells the overseers (the operator when the rules name
// none) that an agent tried what it may not: "tried to act as X". The
// message goes out under the agent's own name, through its outbox: the
// master logs it like any other, and the rules decide whether it reaches
// them.
func reportAttempt(folder *workspace.Workspace, r *rules.Rules, agent, tried string) {
	to := slices.DeleteFunc(r.Overseers(), func(n string) bool { return n == agent })
	if len(to) == 0 {
		to = []string{mailbox.Operator}
	}
	msg := &mailbox.Message{
		From:     agent,
		To:       to,
		Title:    mailbox.ClipTitle(fmt.Sprintf("REFUSED: %s %s", agent, tried)),
		Type:     mailbox.TypeStatus,
		Priority: mailbox.PriorityNormal,
		Content:  "From its own pane, " + agent + " ran: switchboard " + strings.Join(os.Args[1:], " "),
	}
	msg.Normalize(time.Now())
	_, _ = folder.Store.Post(agent, msg) // the refusal stands whether or not the report goes out
}
