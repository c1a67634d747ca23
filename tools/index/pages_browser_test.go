package index_test

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/browser"
	"github.com/arkforge/proveit-corpus/tools/index"
)

// The pages as a reader's browser lays them out, on a phone 390 pixels
// wide and on a desktop: no page is wider than its window (a table or a
// chart too wide scrolls in its own box), the last cell of every row and
// every mark of a chart can be scrolled into view whole, every ranked
// agent has its own mark, two agents of equal figures (alice and eve)
// side by side and not one under the other, and a report reads in French.
func TestPagesInBrowser(t *testing.T) {
	site := build(t, published(season(t)))
	var pages []string
	for name := range siteFiles(t, site) {
		if strings.HasSuffix(name, ".html") {
			pages = append(pages, name)
		}
	}
	slices.Sort(pages)
	require.Contains(t, pages, index.MethodPage)
	b := browser.Start(t, 4*time.Minute)

	tests := []struct {
		name string
		vp   browser.Viewport
	}{
		{"a phone", browser.Phone},
		{"a desktop", browser.Desktop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, name := range pages {
				p := b.OpenAt(t, filepath.Join(site, name), tt.vp)
				assert.Empty(t, p.Requests(), name)
				assert.Empty(t, p.Errors(), name)
				meta, err := p.Count(`meta[name="viewport"][content="width=device-width, initial-scale=1"]`)
				require.NoError(t, err)
				assert.Equal(t, 1, meta, "%s: laid out at the phone's width", name)
				html, err := p.Rects("html")
				require.NoError(t, err)
				assert.Equal(t, float64(tt.vp.Width), html[0].Width, "%s: laid out at the window's width", name)

				overflow, err := p.Overflow()
				require.NoError(t, err)
				assert.Zero(t, overflow, "%s: no page wider than its window", name)
				for _, what := range []string{"table tr > :last-child", "svg.graphique, svg .marque"} {
					unreachable, err := p.Unreachable(what)
					require.NoError(t, err)
					assert.Empty(t, unreachable, "%s: %s seen whole once scrolled to", name, what)
				}
			}

			for _, track := range []string{"conformite", "generique"} {
				_, idx := readIndex(t, site, track)
				p := b.OpenAt(t, filepath.Join(site, track, "index.html"), tt.vp)
				for table, rows := range map[string][]index.Row{index.TableReference: idx.Tables.Reference, index.TableCommunity: idx.Tables.Community} {
					marks, err := p.Rects(`section[id="` + table + `"] svg .marque`)
					require.NoError(t, err)
					assert.Len(t, marks, len(rows), "%s %s: a mark an agent", track, table)
					for _, r := range rows {
						mine, err := p.Rects(`section[id="` + table + `"] svg .marque[data-id="` + r.ID + `"]`)
						require.NoError(t, err)
						assert.Len(t, mine, 1, "%s: %s's own mark", track, r.ID)
					}
					for i, m := range marks {
						for _, o := range marks[i+1:] {
							apart := math.Hypot(m.X-o.X, m.Y-o.Y)
							assert.GreaterOrEqual(t, apart, m.Width, "%s %s: two marks one under the other", track, table)
						}
					}
				}
			}

			report := b.OpenAt(t, filepath.Join(site, "conformite", "carol.html"), tt.vp)
			causes, err := report.Texts(`table[data-table="assertions"] td:nth-child(4)`)
			require.NoError(t, err)
			assert.Contains(t, causes, "valeur ne correspondant pas")
			claims, err := report.Texts(`table[data-table="assertions"] td:nth-child(5)`)
			require.NoError(t, err)
			assert.True(t, slices.ContainsFunc(claims, func(c string) bool { return strings.HasSuffix(c, `= "valeur-jamais-servie"`) }), "the claim: %q", claims)
			body, err := report.Text("body")
			require.NoError(t, err)
			for _, code := range []string{"valeur_ne_correspond_pas", "non_etayee", "non_conforme", "verifiees"} {
				assert.NotContains(t, body, code, "no code on a page")
			}
		})
	}
}
