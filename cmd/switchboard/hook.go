package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"switchboard/hooks"
	"switchboard/lifecycle"
	"switchboard/mailbox"
)

func newHookCmd(io *streams, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook claude|prompt|preexec",
		Short: "Hook entry points, run by the agents' clients and shells",
		Long: `Entry points for hooks; switchboard hooks install prints the wiring.
  hook claude    Claude Code (and Codex CLI, Gemini CLI) hooks: JSON event on stdin, JSON answer on stdout
  hook prompt    bash PROMPT_COMMAND / zsh precmd: the status box and new mail; the agent is idle
  hook preexec   bash PS0 / zsh preexec: the agent is busy
Outside a team (no SWITCHBOARD_AGENT) they do nothing, and hook claude answers {}.`,
		Example: `  echo '{"hook_event_name": "UserPromptSubmit"}' | SWITCHBOARD_AGENT=developer_agent switchboard hook claude`,
	}
	claude := &cobra.Command{
		Use: "claude", Short: "Answer a Claude Code, Codex CLI or Gemini CLI hook event", Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, ok := hookEnv(g)
			if !ok {
				fmt.Fprintln(io.out, "{}")
				return nil
			}
			if err := hooks.Claude(io.in, io.out, env); err != nil {
				fmt.Fprintf(io.errOut, "switchboard hook: %v\n", err) // the answer is already out: never fail the client
			}
			return nil
		},
	}
	prompt := &cobra.Command{
		Use: "prompt", Short: "Before each shell prompt: status box and new mail; idle", Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if env, ok := hookEnv(g); ok {
				if err := hooks.Prompt(io.errOut, env, hooks.UTF8Terminal()); err != nil {
					fmt.Fprintf(io.errOut, "switchboard hook: %v\n", err)
				}
			}
			return nil
		},
	}
	preexec := &cobra.Command{
		Use: "preexec", Short: "Before each shell command: busy", Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if env, ok := hookEnv(g); ok {
				if err := hooks.Preexec(env); err != nil {
					fmt.Fprintf(io.errOut, "switchboard hook: %v\n", err)
				}
			}
			return nil
		},
	}
	cmd.AddCommand(claude, prompt, preexec)
	return cmd
}

// hookEnv finds the workspace and agent without loading the rules: hooks
// run before every prompt and must cost a few milliseconds.
func hookEnv(g *globals) (hooks.Env, bool) {
	agent := g.as
	if agent == "" {
		agent = os.Getenv("SWITCHBOARD_AGENT")
	}
	if agent == "" || mailbox.ValidateAgentName(agent) != nil {
		return hooks.Env{}, false
	}
	ws, err := findWorkspace(g)
	if err != nil {
		return hooks.Env{}, false
	}
	// What hooks write (state, marks, the inbox index) is rebuilt or
	// rewritten at the next call: no fsync before every prompt.
	ws.Store.Durable = false
	if !ws.HasMailbox(agent) {
		return hooks.Env{}, false // not an agent whose mailbox exists
	}
	if pane, ok := lifecycle.PaneAgent(ws); ok && pane != agent {
		return hooks.Env{}, false // a hook run for another agent, from this one's pane
	}
	return hooks.Env{Workspace: ws, Agent: agent, MCP: os.Getenv(hooks.MCPEnv) == "1", Environ: os.Environ()}, true
}
