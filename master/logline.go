package master

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"switchboard/internal/safetext"
)

// lineHandler writes the master's log for a person at its window: one line
// per record, "15:04:05.000 message key=value ...", each written whole even
// when the router, the panes' loop and the typists log at once.
type lineHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	attrs []slog.Attr
}

func newLineHandler(w io.Writer) *lineHandler { return &lineHandler{mu: &sync.Mutex{}, w: w} }

func (h *lineHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Time.Format("15:04:05.000"))
	b.WriteByte(' ')
	// What agents wrote (titles, file names) is in the messages: shown,
	// never sent to the terminal to act on, and never a line of its own.
	b.WriteString(safetext.Line(r.Message))
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%s", a.Key, safetext.Line(a.Value.String()))
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &lineHandler{mu: h.mu, w: h.w, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

// WithGroup is not used by the master; groups are flattened.
func (h *lineHandler) WithGroup(string) slog.Handler { return h }
