package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"switchboard/desk"

	"github.com/spf13/cobra"
)

type spawnOptions struct {
	profile string
	name    string
	parent  string
	task    string
	model   string
	system  string
	env     []string
	noMCP   bool
	tree    bool
}

func newSpawnCmd(io *streams, g *globals) *cobra.Command {
	opts := &spawnOptions{}
	cmd := &cobra.Command{
		Use:   "spawn --profile P [--name N] [--parent A] [--task T] [--model M] [--system S] [--env K=V] [--worktree]",
		Short: "Start one more agent in a new pane of the running team",
		Long: `Start an agent at run time, in a new tmux window named after it, from the
profile agents/P.yaml (or, for an agent the rules name without a profile, a
shell). The new agent is matched by the rules under its own name when the
rules name it, else under its profile's name; it may always talk with its
parent (by default, you) unless a forbidden entry says otherwise. Where the
profile sets no kind, command or cwd, the parent's are used. --model,
--system (added to the profile's system instructions) and --env K=V
(repeatable) are given over the profile, for this agent alone. --worktree
runs it in a git worktree of its own (see switchboard diff and merge); a
helper's tree starts from its parent's branch when its parent has one.

The task, when given, is its first message, sent by you and asking for a
response: the parent collects it with switchboard wait. Spawned agents are
started again by up after a down, until they are closed.`,
		Example: `  switchboard spawn --profile reviewer_agent --task "Review the diff of auth.go"
  switchboard spawn --profile tester_agent --name tester-2 --task "Run the integration tests"
  switchboard spawn --profile developer_agent --model claude-haiku-4 --system "Only touch tests/" --env GOFLAGS=-race
  switchboard spawn --profile developer_agent --worktree --task "Try the other parser"
  switchboard wait reviewer_agent-1 --timeout 30m`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSpawn(cmd.Context(), io, g, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.profile, "profile", "", "the profile to start from (agents/P.yaml, or an agent of the rules)")
	f.StringVar(&opts.name, "name", "", "the new agent's name (default: P-1, P-2, ...)")
	f.StringVar(&opts.parent, "parent", "", "the agent it answers to (default: you)")
	f.StringVar(&opts.task, "task", "", "its first message: what to do")
	f.StringVar(&opts.model, "model", "", "the model, over the profile's")
	f.StringVar(&opts.system, "system", "", "system instructions added to the profile's")
	f.StringArrayVar(&opts.env, "env", nil, "an environment variable K=V, over the profile's (repeatable)")
	f.BoolVar(&opts.tree, "worktree", false, "run it in a git worktree of its own, on branch switchboard/NAME (as worktree: true in a profile)")
	f.BoolVar(&opts.noMCP, "no-mcp", false, "leave the MCP server out of its client: it uses switchboard's shell commands alone")
	return cmd
}

func runSpawn(ctx context.Context, io *streams, g *globals, opts *spawnOptions) error {
	if opts.profile == "" {
		return usageError("--profile is required: the profile to start the agent from (see agents/)")
	}
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	env, err := parseEnv(opts.env)
	if err != nil {
		return err
	}
	res, err := ws.desk().Spawn(ctx, desk.SpawnRequest{
		Profile: opts.profile, Name: opts.name, Parent: opts.parent, Task: opts.task,
		Model: opts.model, System: opts.system, Env: env, NoMCP: opts.noMCP, Worktree: opts.tree,
	})
	var unknown *desk.UnknownAgentError
	var taskNotSent *desk.TaskNotSentError
	switch {
	case errors.Is(err, desk.ErrPrivileged):
		return refusedError(err)
	case errors.Is(err, desk.ErrCannotAnswer):
		return refusedError(fmt.Errorf("%w; nothing was spawned: spawn from another profile, or under another parent", err))
	case errors.Is(err, desk.ErrOtherParent):
		return refusedError(fmt.Errorf("%w: leave out --parent, or ask an overseer", err))
	case errors.As(err, &unknown):
		return notAnAgent(ws.rules, unknown.Name, "(check --parent)")
	case errors.As(err, &taskNotSent):
		if note := taskNotSent.Spawned.Note; note != "" {
			fmt.Fprintf(io.errOut, "note: %s\n", note)
		}
		if refused := asRefused(err); refused != nil {
			return refused
		}
		return err
	case err != nil:
		return err
	}
	if res.Note != "" {
		fmt.Fprintf(io.errOut, "note: %s\n", res.Note)
	}
	if g.json {
		return writeJSON(io.out, res)
	}
	fmt.Fprintf(io.out, "spawned %s (profile %s, parent %s) in pane %s, window %q\n", res.Name, res.Profile, res.Parent, res.Pane, res.Name)
	if res.Task != "" {
		as := ""
		if res.Parent != ws.agent {
			as = " --as " + res.Parent
		}
		fmt.Fprintln(io.out, runnable(fmt.Sprintf("its task is message %s; its answer goes to %s: `switchboard wait %s%s`", res.Task, res.Parent, res.Name, as), ws.folder.Binary()))
	}
	return nil
}

// parseEnv reads --env K=V flags.
func parseEnv(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	env := make(map[string]string, len(pairs))
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\n") {
			return nil, usageError("--env %q is not K=V: give a name, an equals sign and the value, like --env GOFLAGS=-race", kv)
		}
		env[k] = v
	}
	return env, nil
}
