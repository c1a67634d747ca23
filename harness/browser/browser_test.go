package browser_test

import (
	"bytes"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/browser"
)

func fileURL(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// One browser for the package's tests: it takes seconds to start.
func TestBrowser(t *testing.T) {
	b := browser.Start(t, 2*time.Minute)
	t.Run("pages", func(t *testing.T) { testPages(t, b) })
	t.Run("text and screenshot", func(t *testing.T) { testTextAndScreenshot(t, b) })
	t.Run("viewports", func(t *testing.T) { testViewports(t, b) })
}

// A page is laid out in a phone's window as a phone lays it out, its
// viewport meta honoured: a table wider than the phone makes the page
// scroll sideways, unless a box of its own scrolls it; a box that clips it
// hides its last cells, and Unreachable names them.
func testViewports(t *testing.T, b *browser.Browser) {
	tests := []struct {
		page        string
		vp          browser.Viewport
		width       float64 // of the page's layout
		minOverflow int     // 0: the page fits
		unreachable []string
	}{
		// A phone shows such a page shrunk, its last column past the
		// width it lays the page out in.
		{page: "testdata/wide.html", vp: browser.Phone, width: 390, minOverflow: 570, unreachable: []string{"td in a #0", "td in b #1"}},
		{page: "testdata/wide.html", vp: browser.Desktop, width: 1280},
		{page: "testdata/boxed.html", vp: browser.Phone, width: 390},
		{page: "testdata/clipped.html", vp: browser.Phone, width: 390, unreachable: []string{"td in a #0", "td in b #1"}},
		{page: "testdata/nometa.html", vp: browser.Phone, width: 980},
		{page: "testdata/nometa.html", vp: browser.Desktop, width: 1280},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s at %d", tt.page, tt.vp.Width), func(t *testing.T) {
			p := b.OpenAt(t, tt.page, tt.vp)
			html, err := p.Rects("html")
			require.NoError(t, err)
			require.Len(t, html, 1)
			assert.Equal(t, tt.width, html[0].Width, "the layout's width")

			overflow, err := p.Overflow()
			require.NoError(t, err)
			if tt.minOverflow == 0 {
				assert.Zero(t, overflow)
			} else {
				assert.GreaterOrEqual(t, overflow, tt.minOverflow)
			}

			unreachable, err := p.Unreachable("tr > :last-child")
			require.NoError(t, err)
			require.Len(t, unreachable, len(tt.unreachable), "%q", unreachable)
			for i, want := range tt.unreachable {
				assert.True(t, strings.HasPrefix(unreachable[i], want), "%q begins with %q", unreachable[i], want)
			}
			cells, err := p.Rects("td")
			require.NoError(t, err)
			if len(cells) > 0 {
				assert.InDelta(t, 8, cells[0].X, 1, "each box scrolled back: the first cell at the page's padding")
			}
		})
	}
}

// A page that leaves nothing is read as it renders; one that asks for a
// stylesheet beside it and an image on another host, writes a console
// error and throws is caught doing each.
func testPages(t *testing.T, b *browser.Browser) {
	tests := []struct {
		page       string
		requests   []string
		errors     []string // each contained in one recorded error, in order
		headers    []string
		rows, svgs int
	}{
		{page: "testdata/clean.html", headers: []string{"agent", "DID"}, rows: 2, svgs: 1},
		{
			page:     "testdata/leaky.html",
			requests: []string{fileURL(t, "testdata/absent.css"), "http://127.0.0.1:9/ailleurs.png"},
			errors:   []string{"console.error: une erreur 42", "exception: Uncaught Error: levée exprès"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			p := b.Open(t, tt.page)
			assert.Equal(t, fileURL(t, tt.page), p.URL)
			assert.ElementsMatch(t, tt.requests, p.Requests())
			errs := p.Errors()
			for _, want := range tt.errors {
				assert.True(t, containsPart(errs, want), "%q among %q", want, errs)
			}
			if len(tt.errors) == 0 {
				assert.Empty(t, errs)
			}
			headers, err := p.Texts("thead th")
			require.NoError(t, err)
			assert.Equal(t, tt.headers, nonNil(headers))
			rows, err := p.Count("tbody tr")
			require.NoError(t, err)
			assert.Equal(t, tt.rows, rows)
			svgs, err := p.Count("svg circle.mark")
			require.NoError(t, err)
			assert.Equal(t, tt.svgs*2, svgs)
		})
	}
}

func containsPart(all []string, part string) bool {
	for _, s := range all {
		if bytes.Contains([]byte(s), []byte(part)) {
			return true
		}
	}
	return false
}

func nonNil(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// Text reads the first match, and says when there is none; TextsIn reads
// element by element; a screenshot
// is a PNG of the window's width.
func testTextAndScreenshot(t *testing.T, b *browser.Browser) {
	p := b.Open(t, "testdata/clean.html")
	text, err := p.Text("tbody tr td")
	require.NoError(t, err)
	assert.Equal(t, "Prudente", text)
	h1, err := p.Text("h1")
	require.NoError(t, err)
	assert.Equal(t, "Classement de démonstration", h1)
	cells, err := p.TextsIn("tbody tr", "td")
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"Prudente", "did:web:a"}, {"Pressée", "did:web:b"}}, cells)
	_, err = p.Text("table caption")
	assert.ErrorContains(t, err, `no element matches "table caption"`)
	_, err = p.Count("tr[")
	assert.Error(t, err, "a selector that is not one is an error, not zero")

	shot := filepath.Join(t.TempDir(), "page.png")
	require.NoError(t, p.Screenshot(shot))
	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	require.NoError(t, err)
	assert.Equal(t, 1280, cfg.Width)
	assert.Positive(t, cfg.Height)
}
