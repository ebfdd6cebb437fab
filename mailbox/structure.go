package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxDepth is how deep a message file may nest arrays and objects.
const MaxDepth = 32

// checkStructure refuses what decoding would let through in a changed form:
// bytes that are not UTF-8 (decoded as U+FFFD), a field named twice at the
// top (the last would win, unseen), and nesting deeper than MaxDepth.
func checkStructure(data []byte) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("%w: the file is not valid UTF-8; write the message in UTF-8", ErrInvalid)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	depth := 0
	topKeys := map[string]bool{}
	expectKey := false // the next string at depth 1 is a key
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil // not JSON: the decoder after this says how, and whether it is still being written
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				depth++
				if depth > MaxDepth {
					return fmt.Errorf("%w: the file nests arrays or objects %d deep, more than %d", ErrInvalid, depth, MaxDepth)
				}
				expectKey = depth == 1 && t == '{'
				continue
			default:
				depth--
			}
		case string:
			if depth == 1 && expectKey {
				if topKeys[t] {
					return fmt.Errorf("%w: field %q is given twice; give it once", ErrInvalid, t)
				}
				topKeys[t] = true
				expectKey = false
				continue
			}
		}
		// A value at the top level ends it: a key comes next.
		expectKey = depth == 1
	}
}
