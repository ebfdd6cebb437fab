// Package hooks will own the hook protocol (Claude Code JSON in and out,
// shell precmd and preexec) and the rendering of the status box that every
// agent sees before each prompt.
package hooks
