// Package browser loads pages from disk in a real browser for tests:
// Debian's Chromium, headless, driven through the DevTools protocol
// (github.com/chromedp/chromedp). A page is opened from its file:// URL
// with every request that leaves it and every console error and uncaught
// exception recorded, then read as a person sees it: the rendered text of
// the elements a CSS selector finds, how many there are, and a PNG
// screenshot of the whole page.
//
// The browser runs with a fresh profile in the test's temporary folder, no
// first-run, sync, component update or background network, no QUIC and no
// GPU, without its sandbox when the test runs as root (the sandbox refuses
// root). Its whole life, every page and step on one included, is bounded
// by the timeout given to Start, and it is killed when the test ends.
package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Install is how a fresh Debian machine gets the browser (.ci/run runs it).
const Install = "apt-get install -y chromium"

// Binary returns the path of Chromium, on PATH or where Debian puts it.
// Without one the test is skipped, or fails when the CI environment
// variable is set: CI installs Chromium (.ci/run), so there its absence is
// a fault.
func Binary(t testing.TB) string {
	t.Helper()
	if path, err := lookChromium(); err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("Chromium is not installed, and CI is set: .ci/run installs it (%s)", Install)
	}
	t.Skipf("Chromium is not installed (%s); CI fails here instead of skipping", Install)
	return ""
}

func lookChromium() (string, error) {
	for _, name := range []string{"chromium", "/usr/bin/chromium"} {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("chromium is not installed (%s)", Install)
}

// Browser is a headless Chromium for one test.
type Browser struct {
	ctx context.Context // the browser's, bounded: every page's derives from it
}

// Start starts Chromium headless for at most timeout, every page it loads
// and every step on one included; the browser is killed then, or when the
// test ends. The window is 1280 by 900 CSS pixels, a screenshot's width.
func Start(t testing.TB, timeout time.Duration) *Browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Binary(t)),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	life, stop := context.WithTimeout(context.Background(), timeout)
	// Cancelling the allocator's context kills the process and waits for it.
	alloc, cancelAlloc := chromedp.NewExecAllocator(life, opts...)
	ctx, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		stop()
	})
	// The first action starts the browser, bound to ctx.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return &Browser{ctx: ctx}
}

// Page is a page loaded in its own tab.
type Page struct {
	// URL is the page's own file:// URL.
	URL string
	ctx context.Context

	mu       sync.Mutex
	requests []string
	errors   []string
}

// Open loads the page at path, a file on disk, in a new tab, and returns
// once its load event has fired. The tab is closed when the test ends.
func (b *Browser) Open(t testing.TB, path string) *Page {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	p := &Page{URL: (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()}
	tab, closeTab := chromedp.NewContext(b.ctx, chromedp.WithListener(p.record))
	t.Cleanup(closeTab)
	p.ctx = tab
	if err := chromedp.Do(tab, chromedp.Navigate(p.URL)); err != nil {
		t.Fatalf("loading %s: %v", p.URL, err)
	}
	return p
}

// record keeps what leaves the page and what goes wrong in it. It runs in
// the tab's loop: it returns at once and sends nothing.
func (p *Page) record(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if u := ev.Request.URL; u != p.URL && !strings.HasPrefix(u, "data:") {
			p.requests = append(p.requests, u)
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			p.errors = append(p.errors, "console."+string(ev.Type)+": "+argsText(ev.Args))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		p.errors = append(p.errors, "exception: "+text)
	case *log.EventEntryAdded:
		// The browser's own errors: a resource that failed to load, a
		// blocked request, a security violation.
		if ev.Entry.Level == log.EntryLevelError {
			p.errors = append(p.errors, "log."+string(ev.Entry.Source)+": "+ev.Entry.Text)
		}
	}
}

// argsText writes a console call's arguments as the console shows them:
// a string as it is, anything else as its JSON or description.
func argsText(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		var s string
		switch {
		case json.Unmarshal([]byte(a.Value), &s) == nil:
		case len(a.Value) > 0:
			s = string(a.Value)
		default:
			s = a.Description
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// Requests are the URLs of the requests that left the page, in order:
// every one but the page's own file:// URL and data: URIs.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Errors are the page's console errors and uncaught exceptions, and the
// browser's error entries about it, in order.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...)
}

// Texts is the rendered text (innerText) of every element selector finds,
// in document order.
func (p *Page) Texts(selector string) ([]string, error) {
	return chromedp.Run(p.ctx, chromedp.Evaluate[[]string](fmt.Sprintf(
		`Array.from(document.querySelectorAll(%s), e => e.innerText)`, quote(selector))))
}

// TextsIn is, for every element outer finds, the rendered text of each
// element inner finds within it: a table's headers, table by table.
func (p *Page) TextsIn(outer, inner string) ([][]string, error) {
	return chromedp.Run(p.ctx, chromedp.Evaluate[[][]string](fmt.Sprintf(
		`Array.from(document.querySelectorAll(%s), o => Array.from(o.querySelectorAll(%s), e => e.innerText))`, quote(outer), quote(inner))))
}

// Text is the rendered text of the first element selector finds; an error
// when none does.
func (p *Page) Text(selector string) (string, error) {
	texts, err := p.Texts(selector)
	if err != nil {
		return "", err
	}
	if len(texts) == 0 {
		return "", fmt.Errorf("no element matches %q", selector)
	}
	return texts[0], nil
}

// Count is how many elements selector finds.
func (p *Page) Count(selector string) (int, error) {
	return chromedp.Run(p.ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%s).length`, quote(selector))))
}

// Screenshot writes a PNG of the whole page, beyond the window's height.
func (p *Page) Screenshot(file string) error {
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100)) // 100: PNG, not JPEG
	if err != nil {
		return err
	}
	return os.WriteFile(file, png, 0o644)
}

// quote writes a selector as a JavaScript string literal.
func quote(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}
