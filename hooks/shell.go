package hooks

import (
	"fmt"
	"io"

	"switchboard/conversation"
	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
)

// Prompt is `hook prompt`, run by bash's PROMPT_COMMAND or zsh's precmd: it
// marks the agent idle and prints the status box and the titles of new mail.
func Prompt(out io.Writer, env Env, utf bool) error {
	if err := setState(env, conversation.Idle); err != nil {
		return err
	}
	sum, items, err := newMail(env.Workspace.Store, env.Agent, false)
	if err != nil {
		return err
	}
	if len(items) > 0 {
		if items, err = claim(env.Workspace.Store, env.Agent, sum, items, true); err != nil {
			return err
		}
	}
	st, err := desk.StatusOf(env.Workspace, env.Agent, sum)
	if err != nil {
		return err
	}
	fmt.Fprint(out, StatusBox(st, utf))
	if len(items) == 0 {
		return nil
	}
	shown := items
	if len(shown) > maxListed {
		shown = shown[len(shown)-maxListed:]
	}
	v := env.Workspace.Store.NewVoucher()
	defer v.Close()
	for _, info := range shown {
		msg, err := env.Workspace.Store.LoadUnread(env.Agent, info.Name)
		if err != nil {
			continue
		}
		from := safetext.Line(msg.From)
		if !v.Vouches(env.Agent, info.Name, msg) {
			from = mailbox.Unverified + ", claims " + from
		}
		fmt.Fprintf(out, "  new: [%s] %s — %s (switchboard read %s)\n", msg.Priority, from, safetext.Line(msg.Title), msg.ID)
	}
	if len(items) > len(shown) {
		fmt.Fprintf(out, "  and %d more: switchboard inbox\n", len(items)-len(shown))
	}
	return nil
}

// Preexec is `hook preexec`, run before each command: the agent is busy.
func Preexec(env Env) error {
	return setState(env, conversation.Busy)
}
