package mailbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"switchboard/internal/jsonl"
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
// grew, check again the files the lines added name: a file changed under a
// name the index had vouched for keeps that name, and when rewritten in
// place even the folder's times, so nothing else would tell the index to
// look again.
func (s *Store) PlantedPath() string {
	return filepath.Join(filepath.Dir(s.LogPath()), "planted.jsonl")
}

// NotePlanted records files (names in agent's mailbox) that no record
// vouches for.
func (s *Store) NotePlanted(agent string, names []string, at time.Time) error {
	if err := jsonl.Append(s.PlantedPath(), PlantedMark{Time: at.UTC(), Agent: agent, Files: names}, s.Durable); err != nil {
		return fmt.Errorf("record planted files: %w", err)
	}
	return nil
}

// maxPlantedRead bounds what plantedBetween reads: more than that added
// since is read as "check every file again".
const maxPlantedRead = 1 << 20

// plantedBetween returns the names of agent's mailbox that the record of
// planted files gained from size from to size to; known is false when that
// cannot be told (the record was replaced or cut, or ends mid-line), and
// every file must be checked again.
func (s *Store) plantedBetween(agent string, from, to int64) (names map[string]bool, known bool) {
	if from == to {
		return nil, true
	}
	if from > to || to-from > maxPlantedRead {
		return nil, false
	}
	f, err := os.Open(s.PlantedPath())
	if err != nil {
		return nil, false
	}
	defer f.Close()
	start := max(from-1, 0) // the newline before the first line added
	data := make([]byte, to-start)
	if _, err := f.ReadAt(data, start); err != nil {
		return nil, false
	}
	if from > 0 {
		if data[0] != '\n' {
			return nil, false
		}
		data = data[1:]
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, false
	}
	names = make(map[string]bool)
	for line := range bytes.Lines(data) {
		var mark PlantedMark
		if err := json.Unmarshal(line, &mark); err != nil {
			return nil, false
		}
		if mark.Agent == agent {
			for _, name := range mark.Files {
				names[name] = true
			}
		}
	}
	return names, true
}
