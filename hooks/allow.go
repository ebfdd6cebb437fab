package hooks

import (
	"switchboard/rules"
)

// agentCommands are the switchboard commands an agent uses to talk and
// coordinate. Its client runs them without asking the person; nothing else
// is allowed by the wiring.
var agentCommands = []string{"send", "reply", "read", "inbox", "ask", "wait", "status", "lock", "unlock", "state", "bulletin", "spawn", "close", "interrupt", "cancel", "profiles"}

// AllowedCommands are the switchboard commands an agent's client may run
// without a prompt: agentCommands (interrupt and cancel too: any agent may
// stop the helpers it spawned), with log and show for overseers. switchboard
// itself still checks every right; the list only spares the person a dialog.
func AllowedCommands(r *rules.Rules, agent string) []string {
	allowed := append([]string(nil), agentCommands...)
	if r == nil {
		return allowed
	}
	if r.IsOverseer(agent) {
		allowed = append(allowed, "log", "show")
	}
	return allowed
}
