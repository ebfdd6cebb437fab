package rules

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"switchboard/internal/spelling"
	"switchboard/mailbox"
)

// CheckNames refuses a file that names someone who is no agent of the
// team: a name with no entry in allowed_interactions, that is not the
// operator, and that is none of profiles (the agents with a profile of
// their own on this host). Such a name is most often a typo, and a typo
// there fails silently: a forbidden entry that forbids no one lets the mail
// it was meant to stop through, an overseer or an interrupter misspelt has
// no rights, and the master would open a mailbox for an agent no one runs.
//
// The entries of allowed_interactions are known whatever the profiles say:
// in a team across machines a host holds only its own agents' profiles,
// and the others' are named by their entries. Agents spawned at run time
// are matched by their profile's name, which is what the file names.
//
// The error is the first such name in the file, with the name it was
// likely meant to be.
func (r *Rules) CheckNames(profiles []string) error {
	known := map[string]bool{Wildcard: true, mailbox.Operator: true}
	for name := range r.Allowed {
		known[name] = true
	}
	for _, name := range profiles {
		known[name] = true
	}
	type use struct {
		line       int
		where, who string
	}
	var unknown []use
	list := func(where string, names []Name) {
		for _, n := range names {
			if !known[n.Value] {
				unknown = append(unknown, use{n.Line, where, n.Value})
			}
		}
	}
	for name, a := range r.Allowed {
		list(name+".can_send_to", a.CanSendTo)
		list(name+".can_receive_from", a.CanReceiveFrom)
	}
	for _, f := range r.Forbidden {
		list("forbidden entry from", []Name{{Value: f.From, Line: f.fromLine}})
		list("forbidden entry to", []Name{{Value: f.To, Line: f.toLine}})
	}
	list("oversight", r.Oversight)
	list("interrupts", r.Interrupts)
	if len(unknown) == 0 {
		return nil
	}
	first := slices.MinFunc(unknown, func(a, b use) int {
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.where, b.where))
	})
	msg := fmt.Sprintf("%s: %q is not an agent of this team: it has no entry in allowed_interactions and no profile", first.where, first.who)
	delete(known, Wildcard)
	if near, ok := spelling.Nearest(first.who, slices.Sorted(maps.Keys(known))); ok {
		msg += fmt.Sprintf("; did you mean %s?", near)
	} else {
		msg += fmt.Sprintf("; correct the name, or give the agent an entry in allowed_interactions (%s: {} is enough for an agent of another host)", first.who)
	}
	return &Error{Path: r.Path, Line: first.line, Msg: msg}
}
