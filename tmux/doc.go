// Package tmux will own the tmux client: a private server per workspace,
// panes addressed by %pane_id, typing a verified line into a pane, ESC
// interrupts, per-pane options, and a fake runner for tests.
package tmux
