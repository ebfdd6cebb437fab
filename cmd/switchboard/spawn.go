package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/agents"
	"switchboard/hooks"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/rules"
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
}

func newSpawnCmd(io *streams, g *globals) *cobra.Command {
	opts := &spawnOptions{}
	cmd := &cobra.Command{
		Use:   "spawn --profile P [--name N] [--parent A] [--task T] [--model M] [--system S] [--env K=V]",
		Short: "Start one more agent in a new pane of the running team",
		Long: `Start an agent at run time, in a new tmux window named after it, from the
profile agents/P.yaml (or, for an agent the rules name without a profile, a
shell). The new agent is matched by the rules under its own name when the
rules name it, else under its profile's name; it may always talk with its
parent (by default, you) unless a forbidden entry says otherwise. Where the
profile sets no kind, command or cwd, the parent's are used. --model,
--system (added to the profile's system instructions) and --env K=V
(repeatable) are given over the profile, for this agent alone.

The task, when given, is its first message, sent by you and asking for a
response: the parent collects it with switchboard wait. Spawned agents are
started again by up after a down, until they are closed.`,
		Example: `  switchboard spawn --profile reviewer_agent --task "Review the diff of auth.go"
  switchboard spawn --profile tester_agent --name tester-2 --task "Run the integration tests"
  switchboard spawn --profile developer_agent --model claude-haiku-4 --system "Only touch tests/" --env GOFLAGS=-race
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
	f.BoolVar(&opts.noMCP, "no-mcp", false, "leave the MCP server out of its client: it uses switchboard's shell commands alone")
	return cmd
}

// spawnResult is what spawn prints with --json.
type spawnResult struct {
	Name    string `json:"name"`
	Profile string `json:"profile"`
	Parent  string `json:"parent"`
	Pane    string `json:"pane"`
	Kind    string `json:"kind"`
	Task    string `json:"task_id,omitempty"`
}

func runSpawn(ctx context.Context, io *streams, g *globals, opts *spawnOptions) error {
	if opts.profile == "" {
		return usageError("--profile is required: the profile to start the agent from (see agents/)")
	}
	ws, err := openWorkspace(g)
	if err != nil {
		return err
	}
	if err := checkProfile(ws, opts.profile); err != nil {
		return err
	}
	parent := opts.parent
	if parent == "" {
		parent = ws.agent
	}
	switch err := ws.rules.MaySpawn(ws.agent, opts.profile, parent); {
	case errors.Is(err, rules.ErrPrivilegedProfile):
		return refusedError(fmt.Errorf("%s may not spawn from profile %s: its agents oversee or interrupt the team, which %s may not", ws.agent, opts.profile, ws.agent))
	case !ws.rules.Knows(parent):
		return notAnAgent(ws.rules, parent, "(check --parent)")
	case errors.Is(err, rules.ErrOtherParent):
		return refusedError(fmt.Errorf("%s may spawn agents for itself only: leave out --parent, or ask an overseer", ws.agent))
	}
	env, err := parseEnv(opts.env)
	if err != nil {
		return err
	}
	name := opts.name
	if name == "" {
		name = freeName(ws, opts.profile)
	}
	seat, note, err := agents.Spawn(ctx, agents.SpawnOptions{
		Workspace: ws.folder, Name: name, Profile: opts.profile, Parent: parent, Task: opts.task,
		Model: opts.model, System: opts.system, Env: env,
		Taken: ws.rules.Knows,
		Wirer: hooks.Wirer{Workspace: ws.folder, NoMCP: opts.noMCP},
	})
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintf(io.errOut, "note: %s\n", note)
	}
	res := spawnResult{Name: name, Profile: opts.profile, Parent: parent, Pane: seat.Pane, Kind: seat.Kind}
	if opts.task != "" {
		if ws.rules, err = ws.folder.Rules(); err != nil {
			return err
		}
		task := &mailbox.Message{
			To: []string{name}, Title: agents.TaskTitle(opts.task), Content: opts.task,
			Type: mailbox.TypeInstruction, RequiresResponse: true,
		}
		if err := post(io, ws, task); err != nil {
			return fmt.Errorf("%s was spawned, but its task was not sent: %w", name, err)
		}
		res.Task = task.ID
	}
	if g.json {
		return writeJSON(io.out, res)
	}
	fmt.Fprintf(io.out, "spawned %s (profile %s, parent %s) in pane %s, window %q\n", name, opts.profile, parent, seat.Pane, name)
	if res.Task != "" {
		as := ""
		if parent != ws.agent {
			as = " --as " + parent
		}
		fmt.Fprintln(io.out, runnable(fmt.Sprintf("its task is message %s; its answer goes to %s: `switchboard wait %s%s`", res.Task, parent, name, as), ws.folder.Binary()))
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

// checkProfile accepts a profile file's name or an agent of the rules.
func checkProfile(ws *caller, name string) error {
	profiles, err := profile.LoadProfiles(ws.folder.Profiles())
	if err != nil {
		return err
	}
	if _, ok := profiles[name]; ok || ws.rules.Knows(name) {
		return nil
	}
	return fmt.Errorf("no profile %q: give one of agents/ (%s) or an agent of the rules", name, strings.Join(slices.Sorted(maps.Keys(profiles)), ", "))
}

// freeName is the first of P-1, P-2, ... that no agent has, now or before:
// a closed agent's mailbox stays, and a new agent must not inherit it.
func freeName(ws *caller, from string) string {
	for i := 1; ; i++ {
		name := from + "-" + strconv.Itoa(i)
		if len(name) > 63 {
			name = from[:63-len(strconv.Itoa(i))-1] + "-" + strconv.Itoa(i)
		}
		if !ws.rules.Knows(name) && !ws.folder.HasMailbox(name) {
			return name
		}
	}
}
