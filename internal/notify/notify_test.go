package notify_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/internal/notify"
)

func TestTheNotifierRunsTheCommandAndPostsTheText(t *testing.T) {
	got := make(chan [2]string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- [2]string{r.Header.Get("Title"), string(body)}
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "told")
	dir := t.TempDir()
	settings := filepath.Join(dir, notify.File)
	os.WriteFile(settings, []byte("command: [sh, -c, 'printf \"%s|%s\" \"$0\" \"$1\" > "+out+"']\nurl: "+srv.URL+"\n"), 0o600)
	n, ok, err := notify.Load(settings)
	if err != nil || !ok {
		t.Fatalf("load: %v %v", ok, err)
	}
	if err := n.Send(context.Background(), "LIMITED: developer_agent", "rate limited"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(out); string(data) != "LIMITED: developer_agent|rate limited" {
		t.Errorf("the command was given %q", data)
	}
	if g := <-got; g != [2]string{"LIMITED: developer_agent", "rate limited"} {
		t.Errorf("the endpoint got %q", g)
	}
}

func TestNotifierSettingsThatSayNothingAreRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, notify.File)
	if _, ok, err := notify.Load(path); ok || err != nil {
		t.Errorf("no file: %v %v; want none, no error", ok, err)
	}
	for _, text := range []string{"", "comand: [x]\n", "url: ''\n"} {
		os.WriteFile(path, []byte(text), 0o600)
		if _, _, err := notify.Load(path); !errors.Is(err, notify.ErrInvalid) {
			t.Errorf("%q: %v; want ErrInvalid", text, err)
		}
	}
}

func TestAFailingNotifierSaysWhy(t *testing.T) {
	n := notify.Notifier{Command: []string{"sh", "-c", "echo no route >&2; exit 3"}}
	if err := n.Send(context.Background(), "t", "x"); err == nil || !strings.Contains(err.Error(), "no route") {
		t.Errorf("err = %v; want the command's own words", err)
	}
}
