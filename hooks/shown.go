package hooks

import (
	"slices"

	"switchboard/mailbox"
)

// newMail returns the agent's inbox summary and the messages its
// conversation has not been shown, oldest first (with urgentOnly, the
// urgent ones alone). The names are read only when the summary says
// something may be new: before most prompts nothing is.
func newMail(store *mailbox.Store, agent string, urgentOnly bool) (mailbox.InboxSummary, []mailbox.FileInfo, error) {
	sum, err := store.InboxSummary(agent)
	if err != nil {
		return sum, nil, err
	}
	shown := store.ReadShown(agent)
	fresh := sum.Newest > shown.Upto
	if urgentOnly {
		fresh = sum.NewestUrgent != "" && !shown.Has(sum.NewestUrgent)
	}
	if !fresh {
		return sum, nil, nil
	}
	names, err := store.InboxIndex(agent)
	if err != nil {
		return sum, nil, err
	}
	unshown := shown.Unshown(names)
	items := make([]mailbox.FileInfo, 0, len(unshown))
	for _, name := range unshown {
		priority, ok := mailbox.NamePriority(name)
		if !ok || (urgentOnly && priority != mailbox.PriorityUrgent) {
			continue
		}
		items = append(items, mailbox.FileInfo{Name: name, Priority: priority})
	}
	if len(items) == 0 && !urgentOnly {
		// Everything was shown, some of it ahead of the rest: say so in the
		// record, so that the next hook needs no listing.
		_, err = store.ClaimShown(agent, nil, sum.Newest)
	}
	return sum, items, err
}

// claim records items as shown to the agent and returns those no other
// channel (the master typing a notice meanwhile) showed first. With whole,
// the hook shows the whole inbox: everything up to its newest message
// counts as shown, including what another channel had shown already.
func claim(store *mailbox.Store, agent string, sum mailbox.InboxSummary, items []mailbox.FileInfo, whole bool) ([]mailbox.FileInfo, error) {
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.Name
	}
	upto := ""
	if whole {
		upto = sum.Newest
	}
	taken, err := store.ClaimShown(agent, names, upto)
	if err != nil || len(taken) == 0 {
		return items, err
	}
	return slices.DeleteFunc(items, func(it mailbox.FileInfo) bool { return slices.Contains(taken, it.Name) }), nil
}
