package jsonl

import (
	"encoding/json"
	"os"
	"syscall"
)

// Append appends v, as one line of JSON, to the file at path, making the
// file when there is none, and syncs it when durable. A link in the file's
// place is not followed: a writer writes nowhere a link set by someone
// else points.
func Append(path string, v any, durable bool) error {
	return AppendAll(path, []any{v}, durable)
}

// AppendAll appends one line per value in one write, synced once.
func AppendAll(path string, vs []any, durable bool) error {
	var line []byte
	for i, v := range vs {
		one, err := json.Marshal(v)
		if err != nil {
			return err
		}
		line = append(line, one...)
		if i < len(vs)-1 {
			line = append(line, '\n')
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
