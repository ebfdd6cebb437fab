package main

import (
	"errors"

	"switchboard/desk"
)

// deskError maps what the desk refused to this command line's exit codes:
// a name that is no agent, and a bad argument, are usage errors (2); a
// right the rules do not give is a refusal (3); anything else is returned
// as it is (1).
func deskError(ws *caller, err error) error {
	var unknown *desk.UnknownAgentError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &unknown):
		return notAnAgent(ws.rules, unknown.Name, "")
	case errors.Is(err, desk.ErrDecision), errors.Is(err, desk.ErrNoRule), errors.Is(err, desk.ErrShortID):
		return usageError("%w", err)
	case errors.Is(err, desk.ErrNoRight):
		return refusedError(err)
	}
	return err
}
