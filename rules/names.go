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
// Every such name is told, each with the name it was likely meant to be,
// in the order of their lines: each is an *Error.
func (r *Rules) CheckNames(profiles []string) error {
	if problems := r.unknownNames(profiles); len(problems) > 0 {
		return joinProblems(problems)
	}
	return nil
}

// unknownNames are the problems of the names in the file that are no
// agent of the team, in the order of their lines.
func (r *Rules) unknownNames(profiles []string) []*Error {
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
	slices.SortFunc(unknown, func(a, b use) int {
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.where, b.where))
	})
	delete(known, Wildcard)
	team := slices.Sorted(maps.Keys(known))
	var problems []*Error
	for _, u := range unknown {
		msg := fmt.Sprintf("%s: %q is not an agent of this team: it has no entry in allowed_interactions and no profile", u.where, u.who)
		if near, ok := spelling.Nearest(u.who, team); ok {
			msg += fmt.Sprintf("; did you mean %s?", near)
		} else {
			msg += fmt.Sprintf("; correct the name, or give the agent an entry in allowed_interactions (%s: {} is enough for an agent of another host)", u.who)
		}
		problems = append(problems, &Error{Path: r.Path, Line: u.line, Msg: msg})
	}
	return problems
}
