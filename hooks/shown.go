package hooks

import (
	"slices"

	"switchboard/conversation"
	"switchboard/mailbox"
)

// newMail returns the agent's inbox summary and the messages its
// conversation has not been shown, oldest first (with urgentOnly, the
// urgent ones alone). The names are read only when the inbox changed since
// the conversation was last shown all of it: before most prompts it did
// not.
func newMail(store *mailbox.Store, agent string, urgentOnly bool) (mailbox.InboxSummary, []mailbox.FileInfo, error) {
	sum, err := store.InboxSummary(agent)
	if err != nil {
		return sum, nil, err
	}
	// Before most prompts the inbox is as it was when the conversation was
	// shown all of it: the record's first line says so, and its names,
	// which may be thousands, are not read.
	book := conversation.Of(store)
	if sum.Unread == 0 || book.ShownWhole(agent, sum.Stamp) {
		return sum, nil, nil
	}
	shown := book.Shown(agent)
	fresh := sum.Stamp == "" || sum.Stamp != shown.Whole
	if urgentOnly {
		fresh = fresh && sum.NewestUrgent != "" && !shown.Has(sum.NewestUrgent)
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
	if len(unshown) == 0 && sum.Stamp != "" {
		// Everything was shown, some of it by another channel: say so in
		// the record, so that the next hook needs no listing.
		_, err = book.ClaimShown(agent, nil, sum.Stamp)
	}
	return sum, items, err
}

// claim records items as shown to the agent and returns those no other
// channel (the master typing a notice meanwhile) showed first. With whole,
// the hook shows the whole inbox as sum found it.
func claim(store *mailbox.Store, agent string, sum mailbox.InboxSummary, items []mailbox.FileInfo, whole bool) ([]mailbox.FileInfo, error) {
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.Name
	}
	stamp := ""
	if whole {
		stamp = sum.Stamp
	}
	taken, err := conversation.Of(store).ClaimShown(agent, names, stamp)
	if err != nil || len(taken) == 0 {
		return items, err
	}
	return slices.DeleteFunc(items, func(it mailbox.FileInfo) bool { return slices.Contains(taken, it.Name) }), nil
}
