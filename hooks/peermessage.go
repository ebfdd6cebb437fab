package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"switchboard/desk"
	"switchboard/internal/clientinbox"
	"switchboard/mailbox"
	"switchboard/rules"
)

// PeerMessageTool is Claude Code's own tool for writing into another
// session's conversation. In a team every message goes through
// switchboard, where the rules, the log and the bulletin see it: the
// agent's settings route each call of the tool through its PreToolUse
// hook, which sends the message as a switchboard message instead and
// refuses the call. Its listing tool (ListAgents), which would show the
// agent every session of the user, is denied in the settings outright.
const PeerMessageTool = "SendMessage"

// peerHow tells the model how agents write to each other in a team.
const peerHow = "In this team, agents write to each other with switchboard (switchboard send --to AGENT --title T --content C), not with " + PeerMessageTool + "."

// peerMessage is what a call of the tool asks to send: Claude Code 2.1.328
// fills both names of each field.
type peerMessage struct {
	To        string `json:"to"`
	Recipient string `json:"recipient"`
	Message   string `json:"message"`
	Content   string `json:"content"`
	Summary   string `json:"summary"`
}

func preToolUse(ev event, env Env) (output, error) {
	if ev.Tool != PeerMessageTool {
		return output{}, nil
	}
	var in peerMessage
	if err := json.Unmarshal(ev.Input, &in); err != nil {
		return refuseTool(peerHow), fmt.Errorf("read a %s call: %w", PeerMessageTool, err)
	}
	if !reachesAnotherSession(in.to(), env) {
		return output{}, nil // one of the session's own subagents
	}
	reason, err := sendPeerMessage(in, env)
	return refuseTool(reason), err
}

// to is whom the call writes to.
func (in peerMessage) to() string { return strings.TrimSpace(firstOf(in.To, in.Recipient)) }

// reachesAnotherSession reports whether a call to that address would
// leave the session: to an agent of the team, to a socket or a bridged
// session by its address, or to a live session of the user's by its name
// or id. The session's own subagents (the names its Agent tool gave them,
// and "main" for its own conversation) are its own business.
func reachesAnotherSession(to string, env Env) bool {
	if to == "" || to == "*" || strings.Contains(to, ":") || strings.Contains(to, "/") || to == clientinbox.Sender {
		return true
	}
	if r, err := rules.LoadTeam(env.Workspace); err != nil || r.Knows(to) {
		return true
	}
	return slices.Contains(clientinbox.Names(clientinbox.ConfigDir(env.Environ)), to)
}

// sendPeerMessage sends what the tool call asked as a switchboard message
// from the agent, when it names an agent of the team, and says what became
// of it; else it tells the overseers of the attempt. Either way the
// client's own message is not sent.
func sendPeerMessage(in peerMessage, env Env) (reason string, err error) {
	const how = peerHow
	to, text := in.to(), firstOf(in.Message, in.Content)
	r, err := rules.LoadTeam(env.Workspace)
	if err != nil {
		return how, err
	}
	if to == clientinbox.Sender {
		return "Not sent: the message came from switchboard, which takes no answer this way. " + how + " Answer a message with switchboard reply ID --content C.", nil
	}
	if !r.Knows(to) || to == env.Agent {
		desk.ReportAttempt(env.Workspace.Store, r, env.Agent,
			fmt.Sprintf("tried to write to %q with the client's own %s", to, PeerMessageTool),
			fmt.Sprintf("%s called %s to reach %q, past switchboard. The call was refused; nothing was sent. Its message:\n\n%s\n", env.Agent, PeerMessageTool, to, text))
		return fmt.Sprintf("Not sent: %q is not an agent you can reach this way, and the attempt was reported to the team's overseers. %s", to, how), nil
	}
	title := firstLine(firstOf(in.Summary, text))
	msg := &mailbox.Message{To: []string{to}, Title: mailbox.ClipTitle(title), Content: text, Type: mailbox.TypeQuery, Priority: mailbox.PriorityNormal}
	sent, err := desk.New(env.Workspace, r, env.Agent).Send(msg)
	var blocked *desk.BlockedError
	switch {
	case errors.As(err, &blocked):
		return fmt.Sprintf("Not sent: %v. %s", blocked, how), nil
	case err != nil:
		return how, err
	}
	return fmt.Sprintf("Sent through switchboard instead, as message %s to %s (the client's own %s is off in this team). %s", sent.ID, to, PeerMessageTool, how), nil
}

// refuseTool is a PreToolUse answer that refuses the call, telling the
// model why.
func refuseTool(reason string) output {
	return output{HookSpecificOutput: &specificOutput{HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: reason}}
}

func firstOf(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if line, _, ok := strings.Cut(s, "\n"); ok {
		return strings.TrimSpace(line)
	}
	if s == "" {
		return "(no title)"
	}
	return s
}
