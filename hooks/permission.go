package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"

	"switchboard/conversation"
	"switchboard/internal/safetext"
	"switchboard/internal/watch"
	"switchboard/mailbox"
	"switchboard/profile"
	"switchboard/rules/approvals"
)

// The permission bridge. When a client would ask the person at its pane
// whether to run a tool call (Claude Code's and Codex's PermissionRequest
// hook), the agent's profile says who answers: the person at the pane, as
// ever; no one, a refusal ("deny"); or its parent ("parent", the default
// for a spawned agent), which gets a request it answers with allow, deny,
// always or never, or passes up with ask --forward. An answer given once
// for all (always, never) answers the later calls it covers at once. No
// answer in the profile's time, or none of the options, is a refusal. The
// dialog stays open in the pane meanwhile: a person who answers there first
// ends the request.

// The answers a permission request accepts (mailbox.PermissionOptions).
const (
	answerAllow  = "allow"
	answerDeny   = "deny"
	answerAlways = approvals.Always
	answerNever  = approvals.Never
)

// toolCall is what a permission hook's input says of the call.
type toolCall struct {
	Tool        string          `json:"tool_name"`
	Input       json.RawMessage `json:"tool_input"`
	Suggestions []suggestion    `json:"permission_suggestions"`
}

// suggestion is a rule the client's dialog would offer to remember.
type suggestion struct {
	Type  string `json:"type"`
	Rules []struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent"`
	} `json:"rules"`
}

// command is the shell command of the call, "" for other tools.
func (c toolCall) command() string {
	var in struct {
		Command any `json:"command"`
	}
	_ = json.Unmarshal(c.Input, &in)
	switch cmd := in.Command.(type) {
	case string:
		return cmd
	case []any: // Codex gives argv
		var words []string
		for _, w := range cmd {
			if s, ok := w.(string); ok {
				words = append(words, s)
			}
		}
		return strings.Join(words, " ")
	}
	return ""
}

// rule is what always or never would cover: the client's own suggestion,
// else the command itself, else every call of the tool.
func (c toolCall) rule() string {
	for _, s := range c.Suggestions {
		for _, r := range s.Rules {
			if r.ToolName == c.Tool && r.RuleContent != "" {
				return r.RuleContent
			}
		}
	}
	return c.command()
}

// what is the call in a line: "Bash: rm -rf build", "Write {"file_path":...}".
func (c toolCall) what() string {
	if cmd := c.command(); cmd != "" {
		return c.Tool + ": " + cmd
	}
	return c.Tool + " " + string(c.Input)
}

// permissionDecision is the hook's answer to the client.
type permissionDecision struct {
	Behavior           string `json:"behavior"`
	Message            string `json:"message,omitempty"`
	UpdatedPermissions []any  `json:"updatedPermissions,omitempty"`
}

func permissionOutput(d permissionDecision) output {
	return output{HookSpecificOutput: &specificOutput{HookEventName: "PermissionRequest", Decision: &d}}
}

// sessionRule makes the client remember an answer for the rest of its
// session, so that it does not ask again.
func sessionRule(call toolCall, behavior string) []any {
	return []any{map[string]any{
		"type": "addRules", "behavior": behavior, "destination": "session",
		"rules": []map[string]string{{"toolName": call.Tool, "ruleContent": call.rule()}},
	}}
}

func permissionRequest(ev event, env Env) (output, error) {
	out, err := permissionAnswer(ev, env)
	if out.HookSpecificOutput != nil {
		// Decided here: no dialog waits for a person, the agent works on.
		err = errors.Join(err, setState(env, conversation.Busy))
	}
	return out, err
}

func permissionAnswer(ev event, env Env) (output, error) {
	started := time.Now()
	if err := setState(env, conversation.Waiting); err != nil {
		return output{}, err
	}
	call := ev.toolCall
	prompts, err := profile.PromptsOf(env.Workspace, env.Agent)
	if err != nil {
		return output{}, err
	}
	where, timeout, answerer := prompts.Approvals, prompts.Timeout, prompts.Answerer
	if a, ok, err := approvals.Of(env.Workspace).Find(env.Agent, call.Tool, call.command()); err == nil && ok {
		return remembered(env, call, a)
	}
	switch where {
	case profile.ApprovalsPane:
		return output{}, nil // the person at the pane answers
	case profile.ApprovalsDeny:
		return permissionOutput(permissionDecision{Behavior: "deny",
			Message: fmt.Sprintf("switchboard: %s may not run what needs a permission (its profile says approvals: deny); find another way, or ask %s", env.Agent, answerer)}), nil
	}
	// Claude Code remembers an always or never for the rest of its session
	// too; Codex (which sends a turn id) refuses a decision that asks it to.
	return askAnswerer(env, call, answerer, timeout, started, ev.TurnID == "")
}

// remembered answers a call from an earlier always or never, and puts the
// decision in the log with a note to whoever gave it.
func remembered(env Env, call toolCall, a approvals.Approval) (output, error) {
	verb, behavior := "ran", "allow"
	if a.Decision == approvals.Never {
		verb, behavior = "was refused", "deny"
	}
	note := &mailbox.Message{
		From: env.Agent, To: []string{a.By}, Type: mailbox.TypeStatus, Priority: mailbox.PriorityLow,
		Title:   mailbox.ClipTitle(fmt.Sprintf("%s %s %s %s, by your %s for %s", mailbox.PermissionTitle, env.Agent, verb, call.what(), a.Decision, approvals.Describe(a.Tool, a.Rule))),
		Content: fmt.Sprintf("Approval %s; revoke it with: switchboard approvals revoke %s", a.ID, a.ID),
	}
	err := postMessage(env, note)
	d := permissionDecision{Behavior: behavior}
	if behavior == "deny" {
		d.Message = fmt.Sprintf("switchboard: %s said never to %s; find another way", a.By, approvals.Describe(a.Tool, a.Rule))
	}
	return permissionOutput(d), err
}

// errAnsweredInPane ends a request the person answered in the pane first.
var errAnsweredInPane = errors.New("answered in the pane")

// askAnswerer sends the call up as a request and waits for the answer, at
// most timeout; the person answering in the pane first ends it.
func askAnswerer(env Env, call toolCall, answerer string, timeout time.Duration, started time.Time, sessionRules bool) (output, error) {
	req := &mailbox.Message{
		From: env.Agent, To: []string{answerer}, Type: mailbox.TypeRequest, Priority: mailbox.PriorityUrgent,
		RequiresResponse: true, CorrelationID: uuid.NewString(),
		Title: mailbox.ClipTitle(fmt.Sprintf("%s %s wants to run %s", mailbox.PermissionTitle, env.Agent, call.what())),
	}
	req.Normalize(time.Now())
	// The field, not the title, makes it a permission prompt: the master
	// vouches for it as this agent's own, sent where its prompts go.
	req.SetPermission(mailbox.Permission{Agent: env.Agent, Tool: call.Tool, Command: call.command(), Rule: call.rule()})
	covers := approvals.Describe(call.Tool, call.rule())
	req.Content = fmt.Sprintf("%s wants to run %s\n\nInput: %s\n\n"+
		"Its client's dialog is open in its pane too: whoever answers first decides.\n"+
		"Answer with switchboard reply %s --option allow (or deny, always, never):\n"+
		"  allow   run it this once\n  deny    refuse it this once (add --content to say why)\n"+
		"  always  run it, and from now on every call of %s\n  never   refuse it, and from now on every call of %s\n"+
		"Or pass it up with switchboard ask --forward %s. No answer within %s is deny.\n",
		env.Agent, call.what(), safetext.Text(string(call.Input)), req.ID, covers, covers, req.ID, timeout)
	if err := postMessage(env, req); err != nil {
		return output{}, err
	}

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	// The client ends the hook (SIGTERM) when the person answers no or
	// presses Esc; a yes lets the call run, which the next hook marks busy.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(signals)
	go func() {
		select {
		case <-ctx.Done():
		case <-signals:
			stop(errAnsweredInPane)
		}
	}()
	// The agent's state file is read each time its folder changes: a
	// question that waits for minutes wakes the hook for nothing else.
	go watch.Await(ctx, time.Second, []string{filepath.Dir(env.book().StatePath(env.Agent))}, func() bool {
		st, ok, _ := env.book().State(env.Agent)
		if ok && st.State != conversation.Waiting && st.Since.After(started) {
			stop(errAnsweredInPane)
			return true
		}
		return false
	})
	// Only the answerer's response to this very request counts: a sibling,
	// the helper itself, or a reply to another message that carries the
	// same correlation id is ordinary mail (mailbox.WaitForAnswer).
	entry, reply, err := env.Workspace.Store.WaitForAnswer(ctx, env.Agent, req.ID, answerer)
	switch {
	case errors.Is(context.Cause(ctx), errAnsweredInPane):
		closing := &mailbox.Message{
			From: env.Agent, To: []string{answerer}, Type: mailbox.TypeStatus, Priority: mailbox.PriorityLow, InReplyTo: req.ID,
			Title: mailbox.ClipTitle(fmt.Sprintf("%s answered in %s's pane: %s", mailbox.PermissionTitle, env.Agent, call.what())),
		}
		return output{}, postMessage(env, closing)
	case errors.Is(err, context.DeadlineExceeded):
		closing := &mailbox.Message{
			From: env.Agent, To: []string{answerer}, Type: mailbox.TypeStatus, Priority: mailbox.PriorityLow, InReplyTo: req.ID,
			Title: mailbox.ClipTitle(fmt.Sprintf("%s no answer within %s: denied %s", mailbox.PermissionTitle, timeout, call.what())),
		}
		return permissionOutput(permissionDecision{Behavior: "deny",
			Message: fmt.Sprintf("switchboard: %s did not answer within %s whether you may run this; it is denied. Go on another way, or ask %s with switchboard ask.", answerer, timeout, answerer)}), postMessage(env, closing)
	case err != nil:
		return output{}, err
	}
	if _, err := env.Workspace.Store.MarkRead(env.Agent, entry); err != nil {
		return output{}, err
	}
	return decided(env, call, reply, sessionRules)
}

// decided turns the answer into the client's decision, remembering always
// and never (in the client's session too, with sessionRules).
func decided(env Env, call toolCall, reply *mailbox.Message, sessionRules bool) (output, error) {
	answer := reply.Answer()
	said := ""
	if body := strings.TrimSpace(reply.Content); body != "" && body != answer {
		said = ": " + body
	}
	var err error
	if answer == answerAlways || answer == answerNever {
		_, err = approvals.Of(env.Workspace).Remember(approvals.Approval{
			Agent: env.Agent, Tool: call.Tool, Rule: call.rule(), Decision: answer, By: reply.From, At: time.Now().UTC(),
		})
	}
	switch answer {
	case answerAllow:
		return permissionOutput(permissionDecision{Behavior: "allow"}), err
	case answerAlways:
		d := permissionDecision{Behavior: "allow"}
		if sessionRules {
			d.UpdatedPermissions = sessionRule(call, "allow")
		}
		return permissionOutput(d), err
	case answerDeny:
		return permissionOutput(permissionDecision{Behavior: "deny", Message: fmt.Sprintf("switchboard: %s denied this%s", reply.From, said)}), err
	case answerNever:
		d := permissionDecision{Behavior: "deny",
			Message: fmt.Sprintf("switchboard: %s denied this, and every call of %s from now on%s", reply.From, approvals.Describe(call.Tool, call.rule()), said)}
		if sessionRules {
			d.UpdatedPermissions = sessionRule(call, "deny")
		}
		return permissionOutput(d), err
	}
	return permissionOutput(permissionDecision{Behavior: "deny",
		Message: fmt.Sprintf("switchboard: %s answered %q, which is none of %s; taken as deny", reply.From, answer, strings.Join(mailbox.PermissionOptions(), ", "))}), err
}

// beforeTool refuses, for Gemini CLI, a call its agent's answerer said
// never to; Gemini CLI's hooks cannot approve, so everything else is left
// to its own rules and its pane.
func beforeTool(ev event, env Env) (output, error) {
	call := ev.toolCall
	a, ok, err := approvals.Of(env.Workspace).Find(env.Agent, call.Tool, call.command())
	if err != nil || !ok || a.Decision != approvals.Never {
		return output{}, err
	}
	out, err := remembered(env, call, a)
	return output{Decision: "deny", Reason: out.HookSpecificOutput.Decision.Message}, err
}

// postMessage drops a message the hook writes for its agent in the outbox;
// the master routes it and logs it like any other.
func postMessage(env Env, m *mailbox.Message) error {
	m.Normalize(time.Now())
	if err := m.Validate(); err != nil {
		return err
	}
	_, err := env.Workspace.Store.Post(env.Agent, m)
	return err
}
