// Package realclient runs the real agent clients in tests: Claude Code,
// Codex CLI and Gemini CLI, installed from the npm registry into a cache
// shared by test runs, and pointed at loopback stand-ins of their model
// APIs written here. A stand-in answers with a text, or with a shell command
// for the client's tool to run, so that a test can show an agent answering
// its mail with no person at it.
package realclient
