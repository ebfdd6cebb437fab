package master

import (
	"fmt"
	"slices"
	"strings"

	"switchboard/internal/safetext"
	"switchboard/mailbox"
	"switchboard/profile"
)

// A permission prompt is vouched for, not believed. Its answer runs a
// command or refuses it, so the person's console and web view offer allow
// and deny for it alone; but its field, like its title, is what any agent
// can write into its outbox. The master checks, when it routes a request
// that carries the field, that it is what the sender's permission bridge
// sends (a request waiting for one of the bridge's answers, asking for its
// sender) to where the sender's profile sends its prompts (its parent, or
// the operator for an agent without one), or that it passes such a prompt
// up unchanged; and writes the verdict into the record
// (Record.Permission), which is what readers check. Anything else is
// delivered as an ordinary request, with a note in the log, and the
// overseers are told, as they are of a request titled like a prompt.
//
// A file put in an inbox by hand has no record and is UNVERIFIED, a reused
// id is rejected before this check, and a copy from another host is never
// vouched for as a prompt (its mark says only what it answers): a prompt
// goes to a parent, which runs on the same host, or to this host's
// operator.

// vouchPermission records in rec whether msg from agent is a permission
// prompt, and returns why it is not when it claims to be one, by its field
// or its title; an error when the log could not be read.
func (m *Master) vouchPermission(agent string, msg *mailbox.Message, rec *mailbox.Record) (notPrompt string, err error) {
	switch {
	case msg.HasPermissionField():
		if notPrompt, err = m.whyNotPrompt(agent, msg); err != nil {
			return "", err
		}
		rec.Permission = notPrompt == ""
	case msg.Type == mailbox.TypeRequest && strings.Contains(strings.ToUpper(msg.Title), mailbox.PermissionTitle):
		notPrompt = "it is titled like one, but no permission bridge asked it"
	}
	if notPrompt != "" {
		rec.Notes = append(rec.Notes, "not a permission prompt: "+notPrompt)
	}
	return notPrompt, nil
}

// whyNotPrompt is why msg, which carries a permission field, is not the
// permission prompt of agent's bridge; "" when it is.
func (m *Master) whyNotPrompt(agent string, msg *mailbox.Message) (string, error) {
	p, ok := msg.Permission()
	switch {
	case !ok:
		return "its permission field is not one the permission bridge writes", nil
	case msg.Type != mailbox.TypeRequest || !msg.RequiresResponse:
		return "it is not a request that waits for its answer", nil
	case !slices.Equal(msg.Options(), mailbox.PermissionOptions()):
		return "its options are not " + strings.Join(mailbox.PermissionOptions(), ", "), nil
	case p.Forwards != "":
		return m.whyNotPassedUp(agent, p)
	case p.Agent != agent:
		return fmt.Sprintf("it asks for %s, and only an agent's own bridge asks for it", safetext.Line(p.Agent)), nil
	}
	prompts, err := profile.PromptsOf(m.ws, agent)
	switch {
	case err != nil:
		return fmt.Sprintf("%s's profile, which says where its prompts go, cannot be read: %v", agent, err), nil
	case prompts.Approvals != profile.ApprovalsParent:
		return fmt.Sprintf("%s's profile sends no prompt up (approvals: %s)", agent, prompts.Approvals), nil
	case !slices.Equal(msg.To, []string{prompts.Answerer}):
		return fmt.Sprintf("%s's prompts go to %s alone", agent, prompts.Answerer), nil
	}
	return "", nil
}

// whyNotPassedUp is why p, sent by agent, does not pass up the prompt it
// names: that prompt must be one, delivered to agent, asking the same.
// Whom agent asks is its own choice, as with any ask --forward.
func (m *Master) whyNotPassedUp(agent string, p mailbox.Permission) (string, error) {
	req, ok, err := m.log.Routed(p.Forwards)
	if err != nil {
		return "", err
	}
	asked, prompt := req.PermissionPrompt()
	switch {
	case !ok || !prompt:
		return "it passes up a message that is no permission prompt", nil
	case !slices.Contains(req.Delivered, agent):
		return fmt.Sprintf("it passes up #%d, which %s never received", req.Seq, agent), nil
	}
	asked.Forwards, p.Forwards = "", ""
	if asked != p {
		return fmt.Sprintf("it does not ask what #%d, the prompt it passes up, asks", req.Seq), nil
	}
	return "", nil
}

// reportNotAPrompt tells the overseers, once, that msg claimed to be a
// permission prompt and is not.
func (m *Master) reportNotAPrompt(msg *mailbox.Message, rec mailbox.Record, why string) {
	title := fmt.Sprintf("NOT A PERMISSION PROMPT: #%d from %s", rec.Seq, msg.From)
	content := fmt.Sprintf("%s sent #%d (to %s) as a permission prompt, but %s.\n"+
		"It was routed as an ordinary request: no console or web view offers allow or deny for it, and no answer to it approves a command.\n"+
		"Its title: %q.\nIf no one meant it, %s may be trying to have a command approved that no permission bridge asked about: `switchboard show %d` has the whole of it.\n",
		msg.From, rec.Seq, strings.Join(msg.To, ", "), why, safetext.Line(msg.Title), msg.From, rec.Seq)
	told := m.tellOverseers("notaprompt/"+msg.ID, title, content, rec.Time)
	if len(told) > 0 {
		m.logf("%s: %s; told %s", title, why, strings.Join(told, ", "))
	}
}
