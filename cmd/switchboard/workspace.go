package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"switchboard/agents"
	"switchboard/mailbox"
	"switchboard/master"
	"switchboard/rules"
)

// workspace is what most commands need: where the team lives, its rules,
// its mailboxes, and who is asking.
type workspace struct {
	root  string
	rules *rules.Rules
	store *mailbox.Store
	agent string
}

// openWorkspace finds the workspace and loads its rules. The caller's agent
// name must be part of the team.
func openWorkspace(g *globals) (*workspace, error) {
	root, err := workspaceRoot(g)
	if err != nil {
		return nil, err
	}
	r, err := agents.LoadRules(root)
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
	return &workspace{root: root, rules: r, store: mailbox.NewStore(root), agent: agent}, nil
}

func workspaceRoot(g *globals) (string, error) {
	root := g.root
	if root == "" {
		root = os.Getenv("SWITCHBOARD_ROOT")
	}
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find workspace: %w", err)
		}
		return rules.FindWorkspace(wd)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", root, err)
	}
	if _, err := os.Stat(filepath.Join(abs, rules.FileName)); err != nil {
		return "", fmt.Errorf("%s is not a workspace: it has no %s; run `switchboard init` there", abs, rules.FileName)
	}
	return abs, nil
}

// masterRunning reports the pid of the workspace's master, if one runs.
func (w *workspace) masterRunning() (int, bool) {
	return master.Running(w.store.LockPath())
}

// mayRead reports whether the caller may read a logged message.
func (w *workspace) mayRead(rec *mailbox.Record) bool {
	return w.rules.IsOverseer(w.agent) || rec.Involves(w.agent)
}
