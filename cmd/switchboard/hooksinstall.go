package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/hooks"
	"switchboard/lifecycle"
	"switchboard/rules"
	"switchboard/workspace"
)

type hooksInstallOptions struct {
	kind        string
	agent       string
	write       bool
	permissions bool
	mcp         bool
	noMCP       bool
}

func newHooksCmd(io *streams, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks install --kind K [--agent A] [--write]",
		Short: "Print or write the hook wiring for Claude Code, Codex, Gemini CLI, bash or zsh",
	}
	opts := &hooksInstallOptions{}
	install := &cobra.Command{
		Use:   "install --kind claude|codex|gemini|bash|zsh [--agent A] [--write]",
		Short: "Print (or with --write, write) the hook wiring for one kind of agent",
		Long: `Print the wiring that makes an agent show its mailbox and the team's bulletin,
and run its switchboard commands without a permission prompt:
  claude   a Claude Code settings file (hooks, status line, permissions.allow):
           load it with claude --settings FILE, or merge it into .claude/settings.json
  codex    a Codex CLI hooks.json (~/.codex/hooks.json); --permissions prints the
           rules file that goes in ~/.codex/rules/. Codex runs hooks it trusts:
           review them once with /hooks, or use --write
  gemini   a Gemini CLI settings file (~/.gemini/settings.json); --permissions
           prints the policy file to load with gemini --policy FILE
  bash     lines for ~/.bashrc: PROMPT_COMMAND shows the box, PS0 marks the agent busy
  zsh      lines for ~/.zshrc: precmd and preexec
With --agent the hooks name the workspace and agent; without, they read
SWITCHBOARD_ROOT and SWITCHBOARD_AGENT when they run (switchboard up sets both).
--write puts the wiring under mailboxes/<agent>/hooks/ and prints its path and
how to start the agent with it: for Codex and Gemini CLI a home folder of the
agent's own, made from yours (your files are linked, never changed), with the
hooks trusted. switchboard up does the same for every agent.

The wiring of Claude Code, Codex CLI and Gemini CLI gives them switchboard's
MCP server too (switchboard mcp), its tools allowed without a prompt: --mcp
prints that part alone (Claude Code's --mcp-config file, Codex's
[mcp_servers.switchboard] table, Gemini CLI's mcpServers entry); --no-mcp
leaves it out.`,
		Example: `  switchboard hooks install --kind claude --agent developer_agent > dev-settings.json
  claude --settings dev-settings.json
  switchboard hooks install --kind codex --permissions > ~/.codex/rules/switchboard.rules
  switchboard hooks install --kind bash >> ~/.bashrc     # acts in panes where SWITCHBOARD_AGENT is set
  switchboard hooks install --kind gemini --agent reviewer_agent --write
  switchboard hooks install --kind claude --agent developer_agent --mcp > dev-mcp.json
  claude --settings dev-settings.json --mcp-config dev-mcp.json`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHooksInstall(io, g, opts)
		},
	}
	install.Flags().StringVar(&opts.kind, "kind", "", "claude, codex, gemini, bash or zsh")
	install.Flags().StringVar(&opts.agent, "agent", "", "the agent the hooks run for (default: read at run time from SWITCHBOARD_AGENT)")
	install.Flags().BoolVar(&opts.write, "write", false, "write the wiring under mailboxes/<agent>/hooks/ instead of printing it")
	install.Flags().BoolVar(&opts.permissions, "permissions", false, "print the file that lets the agent run its switchboard commands without a prompt (codex, gemini)")
	install.Flags().BoolVar(&opts.mcp, "mcp", false, "print what gives the client switchboard's MCP server (claude, codex, gemini)")
	install.Flags().BoolVar(&opts.noMCP, "no-mcp", false, "leave the MCP server out of the wiring: the agent uses the shell commands alone")
	cmd.AddCommand(install)
	return cmd
}

func runHooksInstall(io *streams, g *globals, opts *hooksInstallOptions) error {
	if !hooks.ValidWireKind(opts.kind) {
		return usageError("--kind is one of %s (see --help)", strings.Join(hooks.WireKinds, ", "))
	}
	if opts.write && opts.agent == "" {
		opts.agent = g.as
		if opts.agent == "" {
			opts.agent = os.Getenv("SWITCHBOARD_AGENT")
		}
		if opts.agent == "" {
			return usageError("--write needs the agent: pass --agent (see --help)")
		}
	}
	w := hooks.Wiring{Agent: opts.agent, MCP: !opts.noMCP && hooks.HasMCP(opts.kind)}
	var folder *workspace.Workspace
	if opts.agent != "" {
		var err error
		if folder, err = findWorkspace(g); err != nil {
			return err
		}
		r, err := rules.LoadTeam(folder)
		if err != nil {
			return err
		}
		if !r.Knows(opts.agent) {
			return notAnAgent(r, opts.agent, "(check --agent)")
		}
		// Printing another's wiring is harmless; writing it is not.
		if pane, ok := lifecycle.PaneAgent(folder); ok && opts.write && pane != opts.agent {
			return refusedError(fmt.Errorf("this pane is %s's: it may write its own wiring, not %s's", pane, opts.agent))
		}
		w.Workspace, w.Dir = folder.Root, folder.Root
		w.Allowed = hooks.AllowedCommands(r, opts.agent)
	}
	binary, err := hookBinary(folder)
	if err != nil {
		return err
	}
	w.Binary = binary
	switch {
	case opts.mcp:
		config, err := w.MCPConfig(opts.kind)
		if err != nil {
			return usageError("--mcp is for claude, codex and gemini: shells use the switchboard commands")
		}
		_, err = io.out.Write(config)
		return err
	case opts.permissions:
		perms, ok := w.Permissions(opts.kind)
		if !ok {
			return usageError("--permissions is for codex and gemini: Claude Code's are in its settings, and shells ask nobody")
		}
		_, err = io.out.Write(perms)
		return err
	case opts.write:
		wired, err := hooks.WriteWiring(folder, w, opts.kind)
		if err != nil {
			return err
		}
		// The model's own switchboard commands act for the agent too.
		wired.Env = maps.Clone(wired.Env)
		if wired.Env == nil {
			wired.Env = map[string]string{}
		}
		wired.Env["SWITCHBOARD_AGENT"], wired.Env["SWITCHBOARD_ROOT"] = opts.agent, w.Workspace
		fmt.Fprintln(io.out, wired.Path)
		fmt.Fprintln(io.errOut, "start the agent with: "+wired.Command(opts.kind))
		return nil
	}
	config, err := w.Config(opts.kind)
	if err != nil {
		return err
	}
	_, err = io.out.Write(config)
	return err
}

// hookBinary is the switchboard the hooks run: this executable, unless it
// is the throwaway build of `go run`, in which case the copy staged in the
// workspace (or the one on PATH) outlives it.
func hookBinary(ws *workspace.Workspace) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the switchboard binary: %w", err)
	}
	if !strings.Contains(self, string(filepath.Separator)+"go-build") {
		return self, nil
	}
	if ws != nil {
		if err := lifecycle.StageBinary(ws, self); err != nil {
			return "", err
		}
		return ws.Binary(), nil
	}
	return "switchboard", nil
}
