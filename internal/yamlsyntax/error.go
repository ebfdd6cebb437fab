package yamlsyntax

import "fmt"

// Error is a problem in a hand-edited file, with where it is: its path, and
// its line when one is known (0 when not).
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}
