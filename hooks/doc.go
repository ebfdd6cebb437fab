// Package hooks is the fourth delivery channel: before each prompt, after
// each tool call and when an agent stops, its hook shows the mailbox and the
// bulletin and hands new mail to the model. It speaks Claude Code's hook
// protocol (JSON on stdin, JSON on stdout), which Codex CLI shares, and
// Gemini CLI's names for the same events; and prints the status box for bash
// and zsh prompts.
//
// What a hook has shown is remembered per agent as high-water marks over the
// inbox's file names, which sort by delivery time: nothing is shown twice,
// and a hook lists names, it does not parse every unread file.
package hooks
