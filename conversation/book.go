package conversation

import (
	"path/filepath"

	"switchboard/mailbox"
)

// Book is the record of every agent's conversation, kept in each agent's
// mailbox folder beside its boxes, and the record of announcements beside
// the log.
type Book struct {
	store *mailbox.Store
}

// Of returns the book kept in store's mailboxes.
func Of(store *mailbox.Store) *Book { return &Book{store: store} }

// StatePath is the agent's state file.
func (b *Book) StatePath(agent string) string { return b.file(agent, "state.json") }

// ClientRecordPath is where the agent's client recorded the session it
// runs (clientinbox.Record), through its start-up hook.
func (b *Book) ClientRecordPath(agent string) string { return b.file(agent, "client.json") }

// BudgetPath marks an agent over its budget: its notices are held until
// the budget is raised or a new day begins (see desk.OverBudget).
func (b *Book) BudgetPath(agent string) string { return b.file(agent, "over-budget") }

// TranscriptsPath lists, a line each, every transcript the agent's clients
// recorded, for what they spent (switchboard usage).
func (b *Book) TranscriptsPath(agent string) string { return b.file(agent, "transcripts") }

// shownPath is the record of what the agent's conversation was shown.
func (b *Book) shownPath(agent string) string { return b.file(agent, "shown") }

// announcedPath is the record of announcements, beside the log.
func (b *Book) announcedPath() string {
	return filepath.Join(filepath.Dir(b.store.LogPath()), "announced.jsonl")
}

func (b *Book) file(agent, name string) string {
	return filepath.Join(b.store.AgentDir(agent), name)
}
