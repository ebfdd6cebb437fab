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

// CheckStructure refuses what decoding would let through in a changed form:
// bytes that are not UTF-8 (decoded as U+FFFD), a field named twice at the
// top (the last would win, unseen), and nesting deeper than MaxDepth.
func CheckStructure(data []byte) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("%w: the file is not valid UTF-8; write the message in UTF-8", ErrInvalid)
	}
	// Every message the master routes is valid JSON, which a walk that
	// allocates nothing but the top keys checks; the tokenizer, which
	// allocates every token, sees only the rest, and tells of them as it
	// always did.
	if json.Valid(data) {
		return walkStructure(data)
	}
	return tokenStructure(data)
}

// walkStructure is CheckStructure for valid JSON: a walk over its bytes
// that finds what tokenStructure finds in its tokens.
func walkStructure(data []byte) error {
	depth := 0
	topKeys := make(map[string]bool)
	expectKey := false // the next string at depth 1 is a key
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case ' ', '\t', '\n', '\r', ',', ':':
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return fmt.Errorf("%w: the file nests arrays or objects %d deep, more than %d", ErrInvalid, depth, MaxDepth)
			}
			expectKey = depth == 1 && c == '{'
		case '}', ']':
			depth--
			expectKey = depth == 1
		case '"':
			end := stringEnd(data, i)
			if depth == 1 && expectKey {
				key, err := unquote(data[i : end+1])
				if err != nil {
					return tokenStructure(data)
				}
				if topKeys[key] {
					return fmt.Errorf("%w: field %q is given twice; give it once", ErrInvalid, key)
				}
				topKeys[key] = true
				expectKey = false
			} else {
				expectKey = depth == 1
			}
			i = end
		default: // a number, true, false or null
			for i+1 < len(data) && !endsValue(data[i+1]) {
				i++
			}
			expectKey = depth == 1
		}
	}
	return nil
}

// endsValue reports whether c ends a number or a literal in valid JSON.
func endsValue(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', ']', '}':
		return true
	}
	return false
}

// stringEnd is the place of the quote that ends the JSON string starting at
// data[start], in valid JSON.
func stringEnd(data []byte, start int) int {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(data) - 1
}

// unquote decodes a JSON string as the tokenizer does.
func unquote(quoted []byte) (string, error) {
	if !bytes.ContainsRune(quoted, '\\') {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var s string
	err := json.Unmarshal(quoted, &s)
	return s, err
}

// tokenStructure is CheckStructure by the tokenizer, which stops at the
// first thing that is not JSON.
func tokenStructure(data []byte) error {
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
