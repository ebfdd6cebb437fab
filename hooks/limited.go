package hooks

import (
	"strings"
	"time"

	"switchboard/conversation"
)

// limitErrors are the errors Claude Code's StopFailure hook names for a
// turn its account could not pay for or was not let through: the agent is
// limited until the client takes a turn again, not failed.
var limitErrors = map[string]string{
	"rate_limit":            "rate limited",
	"billing_error":         "usage limit reached",
	"authentication_failed": "not logged in",
	"oauth_org_not_allowed": "not logged in",
	"account_on_hold":       "account on hold",
	"verification_required": "not logged in",
}

// stopFailure marks the agent limited when its turn ended on its usage or
// rate limit or its login, with what the client said (its reset time
// too, when it gave one); any other error ends the turn as Stop does.
func stopFailure(ev event, env Env) (output, error) {
	what, limited := limitErrors[ev.Error]
	if !limited {
		return output{}, setState(env, conversation.Idle)
	}
	detail := what
	if d := strings.TrimSpace(ev.ErrorDetails); d != "" {
		detail += ": " + d
	}
	return output{}, env.book().SetState(env.Agent, conversation.State{
		State: conversation.Limited, Since: time.Now().UTC(), Source: conversation.SourceHook,
	}.Detailed(detail))
}
