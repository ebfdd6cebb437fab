package main

import (
	"fmt"
	"os"
	"strings"

	"switchboard/mailbox"
	"switchboard/master"
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
	agent := g.as
	if agent == "" {
		agent = os.Getenv("SWITCHBOARD_AGENT")
	}
	if agent == "" {
		agent = mailbox.Operator
	}
	if !r.Knows(agent) {
		return nil, fmt.Errorf("%q is not an agent of this team (%s); check --as or SWITCHBOARD_AGENT", agent, strings.Join(r.Agents(), ", "))
	}
	return &caller{folder: folder, root: folder.Root, rules: r, store: folder.Store, agent: agent}, nil
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

// masterRunning reports the pid of the workspace's master, if one runs.
func (w *caller) masterRunning() (int, bool) {
	return master.Running(w.folder)
}
