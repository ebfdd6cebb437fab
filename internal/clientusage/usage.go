package clientusage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// Tokens are what model answers took.
type Tokens struct {
	In         int64 `json:"in"`
	Out        int64 `json:"out"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
}

// Add is the sum of two counts.
func (t Tokens) Add(o Tokens) Tokens {
	return Tokens{In: t.In + o.In, Out: t.Out + o.Out, CacheRead: t.CacheRead + o.CacheRead, CacheWrite: t.CacheWrite + o.CacheWrite}
}

// Sum is every token counted, in, out and cached.
func (t Tokens) Sum() int64 { return t.In + t.Out + t.CacheRead + t.CacheWrite }

// Usage is what a transcript records, by model.
type Usage map[string]Tokens

// Total is every model's tokens together.
func (u Usage) Total() Tokens {
	var t Tokens
	for _, m := range u {
		t = t.Add(m)
	}
	return t
}

// Merge adds o's tokens to u's.
func (u Usage) Merge(o Usage) {
	for model, t := range o {
		u[model] = u[model].Add(t)
	}
}

// assistantLine is the part of a Claude Code transcript line read here.
type assistantLine struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Message   struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage struct {
			In         int64 `json:"input_tokens"`
			Out        int64 `json:"output_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
			CacheWrite int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// geminiLine is the part of a Gemini CLI chat log line read here: one of
// its model's answers, written again as it grows (its input counting the
// cached part too; its thoughts paid as output).
type geminiLine struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Model     string    `json:"model"`
	Tokens    *struct {
		In       int64 `json:"input"`
		Out      int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
	} `json:"tokens"`
}

// codexLine is the part of a Codex CLI session log line read here: its
// turn's context names the model, each token count what the last answer
// took (its input counting the cached part too).
type codexLine struct {
	Timestamp time.Time `json:"timestamp"`
	Type      string    `json:"type"`
	Payload   struct {
		Type  string `json:"type"`
		Model string `json:"model"`
		Info  *struct {
			Total struct {
				Tokens int64 `json:"total_tokens"`
			} `json:"total_token_usage"`
			Last struct {
				In         int64 `json:"input_tokens"`
				Cached     int64 `json:"cached_input_tokens"`
				CacheWrite int64 `json:"cache_write_input_tokens"`
				Out        int64 `json:"output_tokens"`
			} `json:"last_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

// readLine reads one line, and says how many bytes it took; one longer
// than maxLine (a tool's huge output) is read through and given back
// empty.
func readLine(r *bufio.Reader) (line []byte, n int64, err error) {
	tooLong := false
	for {
		part, err := r.ReadSlice('\n')
		n += int64(len(part))
		if !tooLong && len(line)+len(part) <= maxLine {
			line = append(line, part...)
		} else {
			tooLong, line = true, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, n, err
		}
	}
}

// maxLine bounds one transcript line read.
const maxLine = 16 << 20

// ErrNotRegular is a transcript named that is no regular file (a link, a
// pipe, a device): an agent may list anything, and nothing but a file of
// its client's is read.
var ErrNotRegular = errors.New("clientusage: not a regular file")

// OpenRegular opens a file for reading only when it is a regular one,
// following no link and never waiting on a pipe.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return f, nil
}

// ReadTranscript sums the usage a client's transcript records for the
// answers given at or after since: Claude Code's (an answer written in
// several lines, one per content block, is counted once, as its last line
// says), Codex CLI's session log (a token count after each answer) or
// Gemini CLI's chat log (an answer written again as it grows, counted
// once). A transcript not there is no usage.
func ReadTranscript(path string, since time.Time) (Usage, error) {
	f, err := OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Usage{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	byAnswer := make(map[string]assistantLine)
	var order []string
	u := Usage{}
	codexModel := ""
	gemini := make(map[string]geminiLine)
	var geminiOrder []string
	r := bufio.NewReaderSize(f, 256<<10)
	var codexTotal int64 // the session's total at the last count read
	for {
		line, _, err := readLine(r)
		if bytes.Contains(line, []byte(`"turn_context"`)) || bytes.Contains(line, []byte(`"token_count"`)) {
			var c codexLine
			if json.Unmarshal(line, &c) == nil {
				switch {
				case c.Type == "turn_context" && c.Payload.Model != "":
					codexModel = c.Payload.Model
				case c.Payload.Type == "token_count" && c.Payload.Info != nil:
					// Codex says a count again with its total unchanged:
					// only a count that moved the total is an answer's.
					total := c.Payload.Info.Total.Tokens
					if total == codexTotal && total != 0 {
						break
					}
					codexTotal = total
					if !c.Timestamp.Before(since) {
						l := c.Payload.Info.Last
						u[codexModel] = u[codexModel].Add(Tokens{In: l.In - l.Cached, Out: l.Out, CacheRead: l.Cached, CacheWrite: l.CacheWrite})
					}
				}
			}
		} else if bytes.Contains(line, []byte(`"type":"gemini"`)) {
			var g geminiLine
			if json.Unmarshal(line, &g) == nil && g.Type == "gemini" && g.ID != "" && g.Tokens != nil && !g.Timestamp.Before(since) {
				if _, seen := gemini[g.ID]; !seen {
					geminiOrder = append(geminiOrder, g.ID)
				}
				gemini[g.ID] = g
			}
		} else if containsAssistant(line) {
			var a assistantLine
			if json.Unmarshal(line, &a) == nil && a.Type == "assistant" && a.Message.ID != "" && !a.Timestamp.Before(since) {
				if _, seen := byAnswer[a.Message.ID]; !seen {
					order = append(order, a.Message.ID)
				}
				byAnswer[a.Message.ID] = a
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	for _, id := range geminiOrder {
		g := gemini[id]
		t := g.Tokens
		u[g.Model] = u[g.Model].Add(Tokens{In: t.In - t.Cached, Out: t.Out + t.Thoughts, CacheRead: t.Cached})
	}
	for _, id := range order {
		a := byAnswer[id]
		u[a.Message.Model] = u[a.Message.Model].Add(Tokens{In: a.Message.Usage.In, Out: a.Message.Usage.Out, CacheRead: a.Message.Usage.CacheRead, CacheWrite: a.Message.Usage.CacheWrite})
	}
	return u, nil
}

func containsAssistant(line []byte) bool {
	return bytes.Contains(line, []byte(`"type":"assistant"`))
}
