package clientusage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
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

// maxLine bounds one transcript line read; a longer one (a tool's huge
// output) is skipped.
const maxLine = 16 << 20

// ReadTranscript sums the usage a Claude Code transcript records for the
// answers given at or after since. An answer written in several lines (one
// per content block) is counted once, as its last line says. A transcript
// not there is no usage.
func ReadTranscript(path string, since time.Time) (Usage, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Usage{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	byAnswer := make(map[string]assistantLine)
	var order []string
	r := bufio.NewReaderSize(f, 256<<10)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line too long for the buffer is no answer's: skip it.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			continue
		}
		if len(line) > 0 && containsAssistant(line) {
			var a assistantLine
			if json.Unmarshal(line, &a) == nil && a.Type == "assistant" && a.Message.ID != "" && !a.Timestamp.Before(since) {
				if _, seen := byAnswer[a.Message.ID]; !seen {
					order = append(order, a.Message.ID)
				}
				byAnswer[a.Message.ID] = a
			}
		}
		if err != nil {
			break
		}
	}
	u := Usage{}
	for _, id := range order {
		a := byAnswer[id]
		u[a.Message.Model] = u[a.Message.Model].Add(Tokens{In: a.Message.Usage.In, Out: a.Message.Usage.Out, CacheRead: a.Message.Usage.CacheRead, CacheWrite: a.Message.Usage.CacheWrite})
	}
	return u, nil
}

func containsAssistant(line []byte) bool {
	return bytes.Contains(line, []byte(`"type":"assistant"`))
}
