package mailbox

import (
	"fmt"
	"path/filepath"
	"time"
)

// PlantedMark is one line of log/planted.jsonl: files the master found in
// an agent's mailbox that no record vouches for.
type PlantedMark struct {
	Time  time.Time `json:"time"`
	Agent string    `json:"agent"`
	Files []string  `json:"files"`
}

// PlantedPath is the master's record of the files it found planted in
// mailboxes. Inbox indexes stamp themselves with its size and, when it
// grew, check every file again: a file changed under a name the index had
// vouched for keeps that name, and when rewritten in place even the
// folder's times, so nothing else would tell the index to look again.
func (s *Store) PlantedPath() string {
	return filepath.Join(filepath.Dir(s.LogPath()), "planted.jsonl")
}

// NotePlanted records files (names in agent's mailbox) that no record
// vouches for.
func (s *Store) NotePlanted(agent string, names []string, at time.Time) error {
	if err := appendJSONLine(s.PlantedPath(), PlantedMark{Time: at.UTC(), Agent: agent, Files: names}, s.Durable); err != nil {
		return fmt.Errorf("record planted files: %w", err)
	}
	return nil
}
