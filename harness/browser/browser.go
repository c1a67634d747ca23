// Package browser loads pages from disk in a real browser for tests:
// Debian's Chromium, headless, driven through the DevTools protocol
// (github.com/chromedp/chromedp). A page is opened from its file:// URL
// with every request that leaves it and every console error and uncaught
// exception recorded, then read as a person sees it: the rendered text of
// the elements a CSS selector finds, how many there are, whether the page
// fits its window and every element can be scrolled into view, and a PNG
// screenshot of the whole page. A page is opened in a desktop's window or
// in a phone's (OpenAt).
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

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
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

// Viewport is the window a page is laid out in, in CSS pixels. A mobile
// one is laid out as a phone's browser lays it out: the page's viewport
// meta is honoured (without one, a page is laid out 980 pixels wide and
// shrunk), scrollbars overlay the content.
type Viewport struct {
	Width, Height int
	Mobile        bool
}

var (
	// Phone is a phone held upright, 390 pixels wide (an iPhone 12 to 15).
	Phone = Viewport{Width: 390, Height: 844, Mobile: true}
	// Desktop is the browser's own window, Start's.
	Desktop = Viewport{Width: 1280, Height: 900}
)

// Open loads the page at path, a file on disk, in a new tab of the
// browser's window, and returns once its load event has fired. The tab is
// closed when the test ends.
func (b *Browser) Open(t testing.TB, path string) *Page {
	t.Helper()
	return b.open(t, path, nil)
}

// OpenAt is Open with the page laid out in the viewport vp from its first
// byte, as a phone or a desktop of that size shows it.
func (b *Browser) OpenAt(t testing.TB, path string, vp Viewport) *Page {
	t.Helper()
	return b.open(t, path, &vp)
}

func (b *Browser) open(t testing.TB, path string, vp *Viewport) *Page {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	p := &Page{URL: (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()}
	tab, closeTab := chromedp.NewContext(b.ctx, chromedp.WithListener(p.record))
	t.Cleanup(closeTab)
	p.ctx = tab
	var steps []chromedp.Action[chromedp.Void]
	if vp != nil {
		steps = append(steps, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			_, err := cdp.Call(ctx, target, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: int64(vp.Width), Height: int64(vp.Height), DeviceScaleFactor: 1, Mobile: vp.Mobile})
			return err
		}))
	}
	if err := chromedp.Do(tab, append(steps, chromedp.Navigate(p.URL))...); err != nil {
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

// Rect is an element's box in the window, in CSS pixels, as
// getBoundingClientRect gives it.
type Rect struct {
	X, Y, Width, Height float64
}

// Rects are the boxes of every element selector finds, in document order,
// the page scrolled as it is.
func (p *Page) Rects(selector string) ([]Rect, error) {
	return chromedp.Run(p.ctx, chromedp.Evaluate[[]Rect](fmt.Sprintf(
		`Array.from(document.querySelectorAll(%s), e => { const r = e.getBoundingClientRect(); return {X: r.x, Y: r.y, Width: r.width, Height: r.height}; })`, quote(selector))))
}

// Overflow is how many CSS pixels the page is wider than its window
// (document.documentElement's scrollWidth past its clientWidth): 0 when
// the page fits, and a reader never scrolls it sideways.
func (p *Page) Overflow() (int, error) {
	return chromedp.Run(p.ctx, chromedp.Evaluate[int](`(() => {
		const d = document.documentElement;
		return Math.max(0, d.scrollWidth - d.clientWidth);
	})()`))
}

// Unreachable names each element selector finds that a reader cannot see
// whole, in document order: each is scrolled into view as a reader would
// scroll to it (the boxes that scroll, then the page; a box that hides its
// overflow does not scroll for a reader), and is named when some part of
// it still lies outside the width the window lays the page out in (a
// phone shrinks a page wider than that), outside the window's height, or
// outside a box that clips it (overflow other than visible), or when it
// has no size. An element larger than the window is never seen whole. Each name gives the
// element's tag, the data-id of its nearest element that has one, its
// place among selector's matches and its rectangle. Every box is scrolled
// back where it was, and the page to its top.
func (p *Page) Unreachable(selector string) ([]string, error) {
	return chromedp.Run(p.ctx, chromedp.Evaluate[[]string](fmt.Sprintf(`(() => {
		const out = [];
		const width = document.documentElement.clientWidth, height = window.innerHeight;
		const slack = 0.5; // sub-pixel layout
		Array.from(document.querySelectorAll(%s)).forEach((e, i) => {
			const scrolled = [];
			for (let a = e.parentElement; a; a = a.parentElement) {
				scrolled.push([a, a.scrollLeft, a.scrollTop]);
			}
			e.scrollIntoView({block: "center", inline: "center"});
			// A script scrolls a box that hides its overflow; a reader
			// cannot: such boxes are put back before the element is seen.
			for (const [a, left, top] of scrolled) {
				const s = getComputedStyle(a);
				if (["hidden", "clip"].includes(s.overflowX) || ["hidden", "clip"].includes(s.overflowY)) {
					a.scrollLeft = left;
					a.scrollTop = top;
				}
			}
			const r = e.getBoundingClientRect();
			let seen = r.width > 0 && r.height > 0 && r.left >= -slack && r.right <= width + slack && r.top >= -slack && r.bottom <= height + slack;
			for (let a = e.parentElement; seen && a; a = a.parentElement) {
				const s = getComputedStyle(a);
				if (s.overflowX === "visible" && s.overflowY === "visible") {
					continue;
				}
				const b = a.getBoundingClientRect();
				seen = r.left >= b.left - slack && r.right <= b.right + slack && r.top >= b.top - slack && r.bottom <= b.bottom + slack;
			}
			if (!seen) {
				const owner = e.closest("[data-id]");
				out.push(e.tagName.toLowerCase() + (owner ? " in " + owner.getAttribute("data-id") : "") + " #" + i +
					" at [" + [r.left, r.top, r.right, r.bottom].map(Math.round).join(", ") + "] in a window of " + width + "x" + height);
			}
			for (const [a, left, top] of scrolled) {
				a.scrollLeft = left;
				a.scrollTop = top;
			}
		});
		window.scrollTo(0, 0);
		return out;
	})()`, quote(selector))))
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
