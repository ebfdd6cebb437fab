package bench

import (
	"errors"
	"testing"
	"time"
)

// TestEveryOptionACheckNamesIsOneAPersonMayGive: a value the suite cannot
// take is refused in the words of the option that holds it, which a
// command turns into its flag; no option is named twice.
func TestEveryOptionACheckNamesIsOneAPersonMayGive(t *testing.T) {
	s := DefaultSuite()
	if err := s.Check(); err != nil {
		t.Fatalf("the default suite: %v", err)
	}
	words := make(map[string]bool)
	for _, o := range s.Options() {
		if words[o.Words] {
			t.Errorf("option %q is declared twice", o.Words)
		}
		words[o.Words] = true
	}
	refused := 0
	names := DefaultSuite()
	for i, o := range names.Options() {
		s := DefaultSuite()
		switch v := s.Options()[i].Value.(type) {
		case *int:
			*v = -1
		case *time.Duration:
			*v = -time.Second
		case *string:
			*v = "no such thing"
		default:
			t.Fatalf("option %q holds a %T", o.Words, v)
		}
		err := s.Check()
		if err == nil {
			continue // a path, or a number that may be anything
		}
		refused++
		var opt *OptionError
		if !errors.As(err, &opt) || opt.Option != o.Words {
			t.Errorf("option %q set wrong: %v; want an OptionError naming %q", o.Words, err, o.Words)
		}
	}
	if refused < 20 {
		t.Errorf("only %d options refuse a value out of bounds; the check looks at fewer than it did", refused)
	}
}
