package clientusage

import (
	"sync"
	"time"

	"switchboard/internal/watch"
)

// Cache remembers what each transcript recorded since a time, and reads a
// transcript again only when it changed: a view drawn at every change of
// the team reads only the transcripts written to since its last look. It
// is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	since time.Time
	read  *watch.Remembered[Usage]
}

// Read is ReadTranscript, remembered.
func (c *Cache) Read(path string, since time.Time) (Usage, error) {
	c.mu.Lock()
	if c.read == nil || !since.Equal(c.since) {
		c.read, c.since = new(watch.Remembered[Usage]), since // a new day: every count changes
	}
	read := c.read
	c.mu.Unlock()
	return read.Get(path, func() (Usage, error) { return ReadTranscript(path, since) })
}
