package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"switchboard/internal/safetext"
	"switchboard/internal/tmux"
	"switchboard/lifecycle"
	"switchboard/profile"
	"switchboard/workspace"
)

// DefaultDemoPause is the time between the demo's steps: enough to read
// what each pane shows.
const DefaultDemoPause = 3 * time.Second

// prepareDemo makes a new workspace for the demo: the default team, each
// agent a shell, so that nothing needs installing and every command the
// demo types can be seen and typed again by hand.
func prepareDemo(dir string) (string, error) {
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "switchboard-demo-"); err != nil {
			return "", fmt.Errorf("make the demo folder: %w", err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("make the demo folder: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("demo folder: %w", err)
	}
	if _, err := profile.WriteDefaultTeam(abs, false); err != nil {
		// Not wrapped: init's hint (--force) is no answer here.
		return "", fmt.Errorf("%v; give --demo-dir an empty folder", err)
	}
	shell := profile.UserShell()
	if bash, err := exec.LookPath("bash"); err == nil {
		shell = bash // its prompt hook shows the box
	}
	marker := "made by switchboard up --demo: switchboard down --purge deletes this folder\n"
	if err := os.WriteFile(workspace.New(abs).DemoMarker(), []byte(marker), 0o644); err != nil {
		return "", fmt.Errorf("write the demo team: %w", err)
	}
	for _, name := range []string{"master_agent", "developer_agent", "reviewer_agent", "tester_agent"} {
		profile := fmt.Sprintf("display_name: %s\nkind: shell\ncommand: [%s]\n", profile.DisplayName(name), strconv.Quote(shell))
		if err := os.WriteFile(workspace.New(abs).ProfilePath(name), []byte(profile), 0o644); err != nil {
			return "", fmt.Errorf("write the demo team: %w", err)
		}
	}
	return abs, nil
}

// startDirector opens the narrator pane along the bottom of the agents
// window; it plays the demo, then leaves a shell there for the person.
func startDirector(ctx context.Context, client *tmux.Client, session, root string, pause time.Duration) error {
	ws := workspace.New(root)
	// switchboard on the PATH of the shell left there: the commands the
	// demo suggests run as printed.
	script := fmt.Sprintf(`PATH=%s:"$PATH"; export PATH; switchboard demo-play --pause %s; exec "${SHELL:-/bin/sh}"`, safetext.ShellWord(ws.BinDir()), pause)
	pane, err := client.SplitBelow(ctx, tmux.Window(session, "agents"), 18, tmux.PaneSpec{
		Dir: root, Env: map[string]string{"SWITCHBOARD_ROOT": root, "SWITCHBOARD_AGENT": "operator", "PS1": "operator$ "},
		Command: []string{"/bin/sh", "-c", script}})
	if err == nil {
		err = client.SetLabels(ctx, tmux.Labels{Title: map[string]string{pane: "the demo's narration · then your shell, as the operator"}})
	}
	if err != nil {
		return fmt.Errorf("start the demo: %w", err)
	}
	return nil
}

func newDemoPlayCmd(io *streams, g *globals) *cobra.Command {
	var pause time.Duration
	cmd := &cobra.Command{
		Use:    "demo-play",
		Short:  "Play the demo in a team started by up --demo",
		Hidden: true,
		Args:   args(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := openWorkspace(g)
			if err != nil {
				return err
			}
			session, ok, err := lifecycle.LoadSession(ws.folder)
			if err != nil {
				return err
			}
			if !ok {
				return lifecycle.ErrNotUp
			}
			d := &director{ctx: cmd.Context(), out: io.out, store: ws.store, session: session,
				client: tmux.NewClient(session.Socket, nil), pause: pause, root: ws.root, pane: os.Getenv("TMUX_PANE")}
			return d.play()
		},
	}
	cmd.Flags().DurationVar(&pause, "pause", DefaultDemoPause, "time between steps")
	return cmd
}
