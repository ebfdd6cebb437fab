package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"switchboard/desk"
)

// stream is an event stream's response, read while the handler writes it.
type stream struct {
	mu     sync.Mutex
	header http.Header
	body   strings.Builder
}

func (s *stream) Header() http.Header { return s.header }
func (s *stream) WriteHeader(int)     {}
func (s *stream) Flush()              {}
func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.body.Write(p)
}

// taken returns what was written since the last call.
func (s *stream) taken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	text := s.body.String()
	s.body.Reset()
	return text
}

// TestTheEventStreamSendsNothingWhileNothingChanges: a page follows a team
// at rest for an hour (of a fake clock): the stream sends it nothing, and
// so wakes neither the server nor the page; a change is told at once, and
// once.
func TestTheEventStreamSendsNothingWhileNothingChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		changes := make(chan struct{})
		s := New(Config{Read: func(context.Context) (*desk.Snapshot, error) { return &desk.Snapshot{}, nil }, Graph: graph, Act: &fakeActions{}, Changes: changes, Token: token})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go s.Run(ctx)
		req := httptest.NewRequestWithContext(ctx, "GET", "http://127.0.0.1/api/events", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		w := &stream{header: http.Header{}}
		served := make(chan struct{})
		go func() {
			s.Handler().ServeHTTP(w, req)
			close(served)
		}()
		synctest.Wait()
		if got := w.taken(); got != "event: change\ndata: {}\n\n" {
			t.Fatalf("the stream opened with %q; want one change, for the page to draw the team", got)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := w.taken(); got != "" {
			t.Errorf("in an hour without a change the stream sent %q; want nothing", got)
		}
		changes <- struct{}{}
		synctest.Wait()
		if got := w.taken(); got != "event: change\ndata: {}\n\n" {
			t.Errorf("after a change the stream sent %q; want one change", got)
		}
		cancel()
		<-served
	})
}
