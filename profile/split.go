package profile

import (
	"errors"
	"strings"
)

// SplitCommand splits a command line into words as a POSIX shell would for
// a simple command: spaces separate words, single quotes keep everything,
// double quotes keep all but \" and \\, and a backslash outside quotes
// escapes the next character. Nothing is expanded.
func SplitCommand(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case ch == '\\':
			if i+1 >= len(line) {
				return nil, errors.New("ends with a lone backslash")
			}
			i++
			word.WriteByte(line[i])
			inWord = true
		case ch == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("has an unclosed single quote")
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				}
				word.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, errors.New("has an unclosed double quote")
			}
			inWord = true
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}
