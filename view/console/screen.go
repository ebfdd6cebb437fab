package console

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// Run shows m full-screen in the terminal of in and out until the person
// quits or ctx ends. It draws when the model's view changed, and nothing
// else: bubbletea's own renderer looks at the view on a ticker (ten times
// a second for the console), which woke the console, and the machine, for
// as long as it was open. bubbletea still reads the keys and runs the
// model.
func Run(ctx context.Context, m tea.Model, in, out *os.File) error {
	width, height, err := term.GetSize(out.Fd())
	if err != nil {
		return fmt.Errorf("read the terminal's size: %w", err)
	}
	state, err := term.MakeRaw(in.Fd())
	if err != nil {
		return fmt.Errorf("put the terminal in raw mode: %w", err)
	}
	defer term.Restore(in.Fd(), state)
	io.WriteString(out, ansi.SetModeAltScreenSaveCursor+ansi.HideCursor+ansi.SetModeBracketedPaste)
	defer io.WriteString(out, ansi.ResetModeBracketedPaste+ansi.ShowCursor+ansi.ResetModeAltScreenSaveCursor)

	s := newScreen(m, out, width, height)
	p := tea.NewProgram(s, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithoutRenderer())
	resized := make(chan os.Signal, 1)
	signal.Notify(resized, syscall.SIGWINCH)
	defer signal.Stop(resized)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-resized:
				if w, h, err := term.GetSize(out.Fd()); err == nil {
					p.Send(tea.WindowSizeMsg{Width: w, Height: h})
				}
			}
		}
	}()
	_, err = p.Run()
	return err
}

// screen runs a model and draws its view on a terminal's alternate
// screen, after each message, the lines that changed alone: a message
// that changed nothing writes nothing.
type screen struct {
	model         tea.Model
	out           io.Writer
	width, height int
	shown         []string // the lines on the terminal; nil: a clear screen
	frames        int      // frames written
}

func newScreen(m tea.Model, out io.Writer, width, height int) *screen {
	return &screen{model: m, out: out, width: width, height: height}
}

// Init starts the model and tells it the terminal's size, as bubbletea
// would, then draws the first frame.
func (s *screen) Init() tea.Cmd {
	first := s.model.Init()
	_, sized := s.Update(tea.WindowSizeMsg{Width: s.width, Height: s.height})
	return tea.Batch(first, sized)
}

// Update hands the message to the model, and draws what changed.
func (s *screen) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if size, ok := msg.(tea.WindowSizeMsg); ok {
		s.width, s.height = size.Width, size.Height
		s.shown = nil
	}
	m, cmd := s.model.Update(msg)
	s.model = m
	s.draw()
	return s, cmd
}

// View is empty: the screen draws itself, and bubbletea's renderer is off.
func (s *screen) View() string { return "" }

// draw writes the lines of the model's view that differ from those shown.
// A view taller than the terminal loses its first lines, as bubbletea's
// renderer would have it.
func (s *screen) draw() {
	lines := strings.Split(s.model.View(), "\n")
	if s.height > 0 && len(lines) > s.height {
		lines = lines[len(lines)-s.height:]
	}
	var b strings.Builder
	if s.shown == nil {
		b.WriteString(ansi.EraseEntireScreen)
	}
	for i, line := range lines {
		if i < len(s.shown) && s.shown[i] == line {
			continue
		}
		b.WriteString(ansi.CursorPosition(1, i+1))
		if s.width > 0 {
			line = ansi.Truncate(line, s.width, "")
		}
		b.WriteString(line)
		// A line as wide as the terminal leaves the cursor on its last
		// cell, which erasing to the right would blank.
		if ansi.StringWidth(line) < s.width {
			b.WriteString(ansi.EraseLineRight)
		}
	}
	if len(lines) < len(s.shown) {
		b.WriteString(ansi.CursorPosition(1, len(lines)+1) + ansi.EraseScreenBelow)
	}
	s.shown = lines
	if b.Len() == 0 {
		return
	}
	io.WriteString(s.out, b.String())
	s.frames++
}
