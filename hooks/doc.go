// Package hooks is the fourth delivery channel: before each prompt, after
// each tool call and when an agent stops, its hook shows the mailbox and the
// bulletin and hands new mail to the model. It speaks Claude Code's hook
// protocol (JSON on stdin, JSON on stdout), which Codex CLI shares, and
// Gemini CLI's names for the same events; and prints the status box for bash
// and zsh prompts.
//
// What a conversation has been shown is one record per agent
// (conversation.Shown), kept by the hooks and by the master's typed notices
// alike: a message enters the conversation once, by whichever channel
// claims it first. A hook lists names, it does not parse every unread file.
//
// It also writes each client's wiring: Claude Code's settings file, and for
// Codex CLI and Gemini CLI a home folder of the agent's own made from the
// user's, with the hooks trusted and the agent's switchboard commands
// allowed without a prompt.
package hooks
