// Package clientinbox speaks to the inbox an agent client keeps for
// messages from other sessions: Claude Code (2.1.224 and later) listens on
// a Unix socket, advertised in its session registry
// (<config dir>/sessions/<pid>.json) beside a key file that holds the token
// a sender authenticates with, and hands what it is sent to its model
// between tool calls, or as a new turn when it is idle.
//
// The package finds a session (Find), sends it one text (Session.Send),
// and tells whether the text reached the conversation by reading the
// session's transcript (Transcript). It keeps no state and knows nothing
// of switchboard's agents: the caller names the session it recorded.
package clientinbox
