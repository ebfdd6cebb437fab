// Package browser starts Debian's headless chromium for tests, driven with
// chromedp, and waits on what its page shows. A test skips, saying how to
// install chromium, where there is none (CI installs it).
package browser

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// New starts a headless chromium for the test and returns the context of
// its first tab; it ends with the test.
func New(tb testing.TB) context.Context {
	tb.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		tb.Skip("no chromium here: install it (apt-get install -y chromium) to run the web view in a real browser")
	}
	if testing.Short() {
		tb.Skip("starts a browser; skipped with -short")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true))
	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, stopTab := chromedp.NewContext(alloc)
	tb.Cleanup(func() { stopTab(); stopAlloc() })
	return tab
}

// Shows waits, up to within, until the text of the element selector finds
// holds text.
func Shows(tab context.Context, selector, text string, within time.Duration) error {
	_, err := chromedp.Run(tab, chromedp.Poll[bool](fmt.Sprintf("document.querySelector(%q)?.textContent.includes(%q)", selector, text),
		chromedp.WithPollingTimeout(within), chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		said, _ := chromedp.Run(tab, chromedp.Evaluate[string](fmt.Sprintf("document.querySelector(%q)?.textContent ?? \"\"", selector)))
		return fmt.Errorf("%q did not show in %s within %s (it says %q): %w", text, selector, within, said, err)
	}
	return nil
}

// ClickUntil clicks the element selector finds until the element of
// shownIn says text (a page may draw the element again as it is clicked),
// up to three times, waiting up to within after each click. A click whose
// element went away as it was clicked is tried again, up to within after
// the last click.
func ClickUntil(tab context.Context, selector, shownIn, text string, within time.Duration) error {
	var err error
	deadline := time.Now().Add(within)
	for clicked := 0; clicked < 3; {
		if err = chromedp.Do(tab, chromedp.Click(selector)); err != nil {
			// The page drew the list again between finding the node and
			// clicking it: the node found is gone, and the next try finds
			// the one drawn in its place.
			if tab.Err() == nil && time.Now().Before(deadline) {
				continue
			}
			return fmt.Errorf("click %s: %w", selector, err)
		}
		clicked++
		if err = Shows(tab, shownIn, text, within); err == nil {
			return nil
		}
		deadline = time.Now().Add(within)
	}
	return err
}
