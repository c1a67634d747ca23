package index

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// Difference is one cell of a published Index that its re-derivation does
// not give: where it is (the track, the file, the table, the participant
// and the column) and both values.
type Difference struct {
	Track, File, Table, Participant, Column string
	Published, Replayed                     string
}

// String is the difference on one line of printable text: every part of
// it may come from the published site, which is anyone's to edit.
func (d Difference) String() string {
	return fmt.Sprintf("%s %s: table %s, participant %s, column %s: published %s, replayed %s",
		clip(d.Track), clip(d.File), clip(d.Table), clip(d.Participant), clip(d.Column), quote(d.Published), quote(d.Replayed))
}

// clip is at most 200 characters of s, printable.
func clip(s string) string { return printable.String(shorten(s)) }

// quote writes a value on one line of printable text, at most 200
// characters of it.
func quote(s string) string { return strconv.QuoteToGraphic(shorten(s)) }

// shorten is at most 200 characters of s: a line of a report, whatever a
// published site holds.
func shorten(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// Check re-derives the Index of the season and compares it, file by file
// and cell by cell, with the one published in the folder site: every cell
// of every index.json, report and page, a file's bytes outside its cells,
// and the files the Index does not have. Each difference is handed to
// report as soon as it is found, none held; Check returns how many.
func Check(o Options, site string, report func(Difference)) (int, error) {
	folder, err := proofs.OpenFolder(site)
	if err != nil {
		return 0, badInput(err)
	}
	defer folder.Close()
	c := &checkSink{site: folder, seen: map[string]bool{}, report: report}
	if err := o.generate(c); err != nil {
		return 0, err
	}
	err = filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(site, p)
		if err != nil {
			return err
		}
		if name := filepath.ToSlash(rel); !c.seen[name] {
			c.add(fileDifference(name, "present", "absent: not a file of the Index"))
		}
		return nil
	})
	if err != nil {
		return c.count, badInput(err)
	}
	return c.count, nil
}

type checkSink struct {
	site   *proofs.Folder
	seen   map[string]bool
	report func(Difference)
	count  int
}

func (c *checkSink) add(d Difference) {
	c.count++
	c.report(d)
}

func fileDifference(name, published, replayed string) Difference {
	return Difference{Track: trackOfFile(name), File: name, Table: "-", Participant: "-", Column: "-", Published: published, Replayed: replayed}
}

func trackOfFile(name string) string {
	if dir := path.Dir(name); dir != "." {
		return dir
	}
	return "-"
}

func (c *checkSink) file(name string, replayed []byte) error {
	c.seen[name] = true
	published, err := c.site.Read(name, limitOf(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.add(fileDifference(name, "absent", "present"))
		return nil
	case err != nil:
		// A link could name any file of the machine, a pipe never end:
		// a site is regular files.
		c.add(fileDifference(name, "unreadable: "+err.Error(), "a file"))
		return nil
	case bytes.Equal(published, replayed):
		return nil
	}
	var pub, rep []cell
	var perr error
	if strings.HasSuffix(name, ".json") {
		pub, perr = jsonCells(published)
		rep, _ = jsonCells(replayed)
	} else {
		pub, perr = htmlCells(published)
		rep, _ = htmlCells(replayed)
	}
	if perr != nil {
		c.add(fileDifference(name, "unreadable: "+perr.Error(), "readable"))
		return nil
	}
	if compareCells(name, pub, rep, c.add) == 0 {
		c.add(Difference{Track: trackOfFile(name), File: name, Table: "-", Participant: "-",
			Column: "(outside the tables' cells)", Published: "other bytes", Replayed: "the Index's bytes"})
	}
	return nil
}

// cell is one value of a file: its table, its row's position and id, its
// column.
type cell struct {
	table       string
	row         int
	participant string
	column      string
	value       string
}

type cellKey struct {
	table  string
	row    int
	column string
}

// compareCells names each cell whose value differs, present on one side
// only included, in the replayed file's order, then the published one's;
// it returns how many.
func compareCells(name string, published, replayed []cell, report func(Difference)) int {
	pub := make(map[cellKey]cell, len(published))
	for _, c := range published {
		pub[cellKey{c.table, c.row, c.column}] = c
	}
	rep := make(map[cellKey]bool, len(replayed))
	n := 0
	out := func(d Difference) { n++; report(d) }
	for _, r := range replayed {
		k := cellKey{r.table, r.row, r.column}
		rep[k] = true
		p, ok := pub[k]
		switch {
		case !ok:
			out(Difference{trackOfFile(name), name, r.table, r.participant, r.column, "(absent)", r.value})
		case p.value != r.value:
			out(Difference{trackOfFile(name), name, r.table, r.participant, r.column, p.value, r.value})
		}
	}
	for _, p := range published {
		if !rep[cellKey{p.table, p.row, p.column}] {
			out(Difference{trackOfFile(name), name, p.table, p.participant, p.column, p.value, "(absent)"})
		}
	}
	return n
}

// jsonCells are a JSON file's leaves: a row of index.json's tables and of
// non_classes is one participant's, by its id; every other leaf is a cell
// of the file's head, named by its pointer.
func jsonCells(data []byte) ([]cell, error) {
	doc, err := pyjson.Parse(data)
	if err != nil {
		return nil, err
	}
	var out []cell
	var walk func(v pyjson.Value, at []string, c cell)
	walk = func(v pyjson.Value, at []string, c cell) {
		switch v := v.(type) {
		case pyjson.Object:
			for _, m := range v {
				walk(m.Value, append(at, m.Key), c)
			}
			if len(v) > 0 {
				return
			}
		case pyjson.Array:
			for i, item := range v {
				next := c
				if rowTable(at) != "" && c.table == "-" {
					next = cell{table: rowTable(at), row: i, participant: idOf(item)}
					walk(item, nil, next)
					continue
				}
				walk(item, append(at, strconv.Itoa(i)), next)
			}
			if len(v) > 0 {
				return
			}
		}
		c.column = pyjson.FormatPointer(at)
		c.value = string(pyjson.Canonical(v))
		out = append(out, c)
	}
	walk(doc, nil, cell{table: "-", participant: "-"})
	return out, nil
}

// rowTable names the table whose rows an array at this pointer holds.
func rowTable(at []string) string {
	switch {
	case len(at) == 2 && at[0] == "tableaux":
		return at[1]
	case len(at) == 1 && at[0] == "non_classes":
		return at[0]
	}
	return ""
}

func idOf(v pyjson.Value) string {
	if obj, ok := v.(pyjson.Object); ok {
		if id, ok := obj.Get("id"); ok {
			if s, ok := id.(string); ok {
				return s
			}
		}
	}
	return "-"
}

// htmlCells are the cells of a page's tables (each a data-table), each
// row's participant its data-id, each column its header's data-col; a
// cell's value is its text, and the target of each link it holds.
func htmlCells(data []byte) ([]cell, error) {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out []cell
	// A table is known by its name and its rank among the tables of that
	// name: a second table slipped in before the real one (hidden by a
	// style or not) is a table of its own, each of its cells named.
	seen := map[string]int{}
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		// A value the page shows outside its tables, such as the tool's
		// version in the re-derive box, is a cell of its own: a site
		// re-derived by another build names it rather than "other bytes".
		if name := attr(n, "data-cell"); n.Type == html.ElementNode && name != "" {
			out = append(out, cell{table: "-", participant: "-", column: name, value: cellText(n)})
			return
		}
		if n.Type == html.ElementNode && n.Data == "table" {
			name := attr(n, "data-table")
			if name == "" {
				name = "(sans nom)"
			}
			if seen[name]++; seen[name] > 1 {
				name = fmt.Sprintf("%s (n°%d)", name, seen[name])
			}
			out = append(out, tableCells(n, name)...)
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)
	return out, nil
}

func tableCells(table *html.Node, name string) []cell {
	var columns []string
	var out []cell
	row := 0
	eachElement(table, "tr", func(tr *html.Node) {
		var cells []*html.Node
		header := false
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
				header = header || c.Data == "th"
				cells = append(cells, c)
			}
		}
		if header {
			columns = columns[:0]
			for _, th := range cells {
				columns = append(columns, attr(th, "data-col"))
			}
			return
		}
		id := attr(tr, "data-id")
		for i, td := range cells {
			col := strconv.Itoa(i)
			if i < len(columns) && columns[i] != "" {
				col = columns[i]
			}
			out = append(out, cell{table: name, row: row, participant: id, column: col, value: cellText(td)})
		}
		row++
	})
	return out
}

func eachElement(n *html.Node, tag string, f func(*html.Node)) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == tag {
			f(c)
			continue
		}
		eachElement(c, tag, f)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// cellText is a cell's text, spaces collapsed, then each link's target.
func cellText(n *html.Node) string {
	var text strings.Builder
	var links []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			text.WriteString(n.Data)
		case html.ElementNode:
			if n.Data == "a" {
				links = append(links, attr(n, "href"))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	s := strings.Join(strings.Fields(text.String()), " ")
	for _, l := range links {
		s += " <" + l + ">"
	}
	return s
}
