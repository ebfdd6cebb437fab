package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"time"

	"gopkg.in/yaml.v3"
)

// File is the workspace's notifier settings, at its root.
const File = "notify.yaml"

// Notifier is where the person is told: Command runs with the title and
// the text as its last two arguments; URL is posted the text (text/plain),
// with the title in a Title header, as ntfy reads it. Either, both, or
// neither.
type Notifier struct {
	Command []string `yaml:"command"`
	URL     string   `yaml:"url"`
}

// ErrInvalid is a settings file that says nothing usable.
var ErrInvalid = errors.New("notify: invalid settings")

// Load reads the settings at path; ok is false when there are none.
func Load(path string) (n Notifier, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Notifier{}, false, nil
	}
	if err != nil {
		return Notifier{}, false, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&n); err != nil && !errors.Is(err, io.EOF) {
		return Notifier{}, false, fmt.Errorf("read %s: %w: %w", path, err, ErrInvalid)
	}
	if len(n.Command) == 0 && n.URL == "" {
		return Notifier{}, false, fmt.Errorf("%s names neither a command nor a url: %w", path, ErrInvalid)
	}
	return n, true, nil
}

// timeout bounds one notification: a notifier that hangs does not hold up
// the next.
const timeout = 10 * time.Second

// Send tells the person, by every way the settings name, and returns what
// failed.
func (n Notifier) Send(ctx context.Context, title, text string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var errs []error
	if len(n.Command) > 0 {
		args := append(append([]string{}, n.Command[1:]...), title, text)
		out, err := exec.CommandContext(ctx, n.Command[0], args...).CombinedOutput()
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w: %s", n.Command[0], err, bytes.TrimSpace(out)))
		}
	}
	if n.URL != "" {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.URL, bytes.NewBufferString(text))
		if err == nil {
			req.Header.Set("Content-Type", "text/plain; charset=utf-8")
			req.Header.Set("Title", title)
			var resp *http.Response
			if resp, err = http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
				resp.Body.Close()
				if resp.StatusCode >= 300 {
					err = fmt.Errorf("%s answered %s", n.URL, resp.Status)
				}
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("post to the notifier: %w", err))
		}
	}
	return errors.Join(errs...)
}
