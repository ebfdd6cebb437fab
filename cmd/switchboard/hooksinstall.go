package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"switchboard/agents"
	"switchboard/hooks"
	"switchboard/mailbox"
)

type hooksInstallOptions struct {
	kind  string
	agent string
	write bool
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
		Long: `Print the wiring that makes an agent show its mailbox and the team's bulletin:
  claude   a Claude Code settings file: load it with claude --settings FILE,
           or merge its "hooks" and "statusLine" into .claude/settings.json
  codex    a Codex CLI hooks.json (~/.codex/hooks.json or <repo>/.codex/hooks.json;
           hooks need features.codex_hooks = true in config.toml)
  gemini   a Gemini CLI settings file (.gemini/settings.json)
  bash     lines for ~/.bashrc: PROMPT_COMMAND shows the box, PS0 marks the agent busy
  zsh      lines for ~/.zshrc: precmd and preexec
With --agent the hooks name the workspace and agent; without, they read
SWITCHBOARD_ROOT and SWITCHBOARD_AGENT when they run (switchboard up sets both).
--write puts the file under mailboxes/<agent>/hooks/ and prints its path:
switchboard up does the same for every agent, and never touches your own files.`,
		Example: `  switchboard hooks install --kind claude --agent developer_agent > dev-settings.json
  claude --settings dev-settings.json
  switchboard hooks install --kind bash >> ~/.bashrc     # acts in panes where SWITCHBOARD_AGENT is set
  switchboard hooks install --kind claude --agent developer_agent --write`,
		Args: args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHooksInstall(io, g, opts)
		},
	}
	install.Flags().StringVar(&opts.kind, "kind", "", "claude, codex, gemini, bash or zsh")
	install.Flags().StringVar(&opts.agent, "agent", "", "the agent the hooks run for (default: read at run time from SWITCHBOARD_AGENT)")
	install.Flags().BoolVar(&opts.write, "write", false, "write the file under mailboxes/<agent>/hooks/ instead of printing it")
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
	w := hooks.Wiring{Agent: opts.agent}
	var store *mailbox.Store
	if opts.agent != "" {
		ws, err := openWorkspace(&globals{root: g.root, as: opts.agent})
		if err != nil {
			return err
		}
		w.Workspace, store = ws.root, ws.store
	}
	binary, err := hookBinary(store)
	if err != nil {
		return err
	}
	w.Binary = binary
	if opts.write {
		path, err := hooks.WriteWiring(store, w, opts.kind)
		if err != nil {
			return err
		}
		fmt.Fprintln(io.out, path)
		fmt.Fprintln(io.errOut, installHint(opts.kind, path))
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
func hookBinary(store *mailbox.Store) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the switchboard binary: %w", err)
	}
	if !strings.Contains(self, string(filepath.Separator)+"go-build") {
		return self, nil
	}
	if store != nil {
		dir, err := agents.StageBinary(store, self)
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, "switchboard"), nil
	}
	return "switchboard", nil
}

func installHint(kind, path string) string {
	switch kind {
	case hooks.WireClaude:
		return "start Claude Code with: claude --settings " + hooks.ShellQuote(path)
	case hooks.WireCodex:
		return "copy it to ~/.codex/hooks.json or <repo>/.codex/hooks.json, with features.codex_hooks = true in config.toml"
	case hooks.WireGemini:
		return "merge it into .gemini/settings.json, or start Gemini CLI with GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + hooks.ShellQuote(path)
	case hooks.WireBash:
		return "start bash with: bash --rcfile " + hooks.ShellQuote(path)
	case hooks.WireZsh:
		return "start zsh with: ZDOTDIR=" + hooks.ShellQuote(filepath.Dir(path)) + " zsh"
	}
	return ""
}
