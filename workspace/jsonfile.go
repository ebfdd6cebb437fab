package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"switchboard/internal/atomicfile"
)

// readJSONFile reads the JSON file at path into v; ok is false, and v left
// as it is, when there is no file. what names the file in errors.
func readJSONFile(path, what string, v any) (ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", what, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("read %s: %s: %w", what, path, err)
	}
	return true, nil
}

// writeJSONFile writes v to path as indented JSON, atomically (made 0600,
// as every temporary file is), making its folder when it has none.
func writeJSONFile(path, what string, v any, durable bool) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		err = atomicfile.WriteFile(path, append(data, '\n'), atomicfile.Options{Durable: durable})
	}
	if err != nil {
		return fmt.Errorf("keep %s: %w", what, err)
	}
	return nil
}
