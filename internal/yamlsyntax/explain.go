package yamlsyntax

import (
	"bytes"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

var lineError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// maxScannedLines bounds the search for the line an error is on.
const maxScannedLines = 5000

// Explain reads a syntax error yaml.v3 gave for data: the line that is
// wrong, and the parser's message with what it means in plain words. ok is
// false for an error that names no line.
func Explain(data []byte, err error) (line int, msg string, ok bool) {
	m := lineError().FindStringSubmatch(err.Error())
	if m == nil {
		return 0, "", false
	}
	line, _ = strconv.Atoi(m[1])
	msg = m[2]
	// The first prefix of the file that fails the same way ends at the
	// line that is wrong: found by halving, a dozen parses for a long file.
	if lines := bytes.SplitAfter(data, []byte("\n")); len(lines) <= maxScannedLines {
		fails := func(n int) bool {
			var doc yaml.Node
			err := yaml.Unmarshal(bytes.Join(lines[:n], nil), &doc)
			return err != nil && strings.HasSuffix(err.Error(), ": "+msg)
		}
		if n := sort.Search(len(lines)+1, fails); n <= len(lines) && n > 0 {
			line = n
		}
	}
	if hint := hints[msg]; hint != "" {
		msg += ": " + hint
	}
	return line, msg, true
}

// hints say in plain words what the parser's most common complaints mean
// in a file written by hand.
var hints = map[string]string{
	"did not find expected key":                      "this line's indentation does not match the lines above it (indent with spaces, two per level)",
	"did not find expected '-' indicator":            "this line's indentation does not match the list above it (indent with spaces, two per level)",
	"mapping values are not allowed in this context": "a colon where a value was expected: quote the value, or start a new line for the next key",
	"found character that cannot start any token":    "a tab or a stray character: indent with spaces and quote values that start with @, ` or %",
}
