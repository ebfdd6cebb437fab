// Package tmux is switchboard's tmux client. Each workspace gets a private
// server (`tmux -L <socket> -f /dev/null`), so the team never touches the
// user's own tmux. Panes are addressed only by their %pane_id. Every call goes
// through one Runner, whose errors carry the arguments and tmux's stderr; a
// StubRunner stands in for tmux in unit tests. The one server not named by
// a socket is the one the caller runs in (Enclosing), whose status line and
// windows the console uses.
//
// Typing into a pane is where other tools fail, so SendLine follows a recipe:
// leave copy mode, paste the sanitized text as one bracketed paste, wait
// until the program has drawn it, press Enter as a separate step, then
// check on screen that the line left the input line, retrying Enter before
// it reports failure.
package tmux
