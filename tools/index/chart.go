package index

import (
	"bytes"
	"fmt"
	"html/template"
	"slices"
	"strings"
)

// The chart of one table: each ranked agent at its success (x) and its
// overclaim (y), the constant-best-answer success marked; an SVG drawn into
// the page, with no script. Agents with no rendered assertion have no
// overclaim to place: the caption names them. Points that fall on the same
// place share one mark, labelled with every row number it stands for.
const (
	chartWidth  = 720
	chartHeight = 420
	plotLeft    = 70
	plotRight   = 690
	plotTop     = 30
	plotBottom  = 360
)

type chartPoint struct {
	X, Y    string
	Label   string
	Title   string
	LabelX  string
	numbers []string // the rows' numbers the mark stands for
}

// maxLabelled is how many row numbers a mark's label lists before it says
// how many more it stands for: the mark's title names them all.
const maxLabelled = 5

func pointLabel(numbers []string) string {
	if len(numbers) <= maxLabelled {
		return strings.Join(numbers, ",")
	}
	return fmt.Sprintf("%s… (%d lignes)", strings.Join(numbers[:maxLabelled], ","), len(numbers))
}

type tick struct {
	Pos, Label string
}

type chartView struct {
	Name, Caption         string
	Width, Height         int
	Left, Right           int
	PlotWidth, PlotHeight int
	Top, Bottom           int
	XTicks, YTicks        []tick
	ConstantX             string
	ConstantLabel         string
	Points                []chartPoint
	Unplaced              string
	XLabel, YLabel        string
	XLabelX, YLabelY      int
}

var chartTemplate = template.Must(template.New("chart").Parse(`<figure>
<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-labelledby="{{.Name}}-titre">
<title id="{{.Name}}-titre">{{.Caption}}</title>
<rect x="{{.Left}}" y="{{.Top}}" width="{{.PlotWidth}}" height="{{.PlotHeight}}" fill="#fbfbfb" stroke="none"/>
{{range .XTicks}}<line x1="{{.Pos}}" y1="{{$.Top}}" x2="{{.Pos}}" y2="{{$.Bottom}}" stroke="#e2e2e2"/><text x="{{.Pos}}" y="{{$.Bottom}}" dy="18" text-anchor="middle" font-size="12" fill="#333">{{.Label}}</text>
{{end}}{{range .YTicks}}<line x1="{{$.Left}}" y1="{{.Pos}}" x2="{{$.Right}}" y2="{{.Pos}}" stroke="#e2e2e2"/><text x="{{$.Left}}" y="{{.Pos}}" dx="-6" dy="4" text-anchor="end" font-size="12" fill="#333">{{.Label}}</text>
{{end}}<line x1="{{.Left}}" y1="{{.Bottom}}" x2="{{.Right}}" y2="{{.Bottom}}" stroke="#333"/>
<line x1="{{.Left}}" y1="{{.Top}}" x2="{{.Left}}" y2="{{.Bottom}}" stroke="#333"/>
<line x1="{{.ConstantX}}" y1="{{.Top}}" x2="{{.ConstantX}}" y2="{{.Bottom}}" stroke="#8a6d00" stroke-width="2" stroke-dasharray="6 4"/>
<text x="{{.ConstantX}}" y="{{.Top}}" dx="4" dy="-8" font-size="12" fill="#6b5400">{{.ConstantLabel}}</text>
{{range .Points}}<g><title>{{.Title}}</title><circle cx="{{.X}}" cy="{{.Y}}" r="5" fill="#3d5a80" stroke="#fff"/><text x="{{.LabelX}}" y="{{.Y}}" dy="4" font-size="12" fill="#1b1b1b">{{.Label}}</text></g>
{{end}}<text x="{{.XLabelX}}" y="{{.Height}}" dy="-12" text-anchor="middle" font-size="13" fill="#1b1b1b">{{.XLabel}}</text>
<text x="16" y="{{.YLabelY}}" transform="rotate(-90 16 {{.YLabelY}})" text-anchor="middle" font-size="13" fill="#1b1b1b">{{.YLabel}}</text>
</svg>
<figcaption>{{.Caption}}{{if .Unplaced}} Sans assertion rendue, donc sans taux d'overclaim à placer : {{.Unplaced}}.{{end}}</figcaption>
</figure>
`))

// chart draws a table's rows; numbers are the rows' numbers in the table
// (the rank in the community table).
func chart(name string, rows []Row, numbers []int, constant Constant) (template.HTML, error) {
	outOf := constant.OutOf
	if outOf < 1 {
		outOf = 1
	}
	x := func(success int) float64 {
		return plotLeft + float64(success)*float64(plotRight-plotLeft)/float64(outOf)
	}
	y := func(rate float64) float64 { return plotBottom - rate*float64(plotBottom-plotTop) }
	v := chartView{Name: "graphique-" + name, Width: chartWidth, Height: chartHeight,
		Left: plotLeft, Right: plotRight, Top: plotTop, Bottom: plotBottom, PlotWidth: plotRight - plotLeft, PlotHeight: plotBottom - plotTop,
		ConstantX:     coord(x(constant.Success)),
		ConstantLabel: fmt.Sprintf("meilleure réponse constante : %d / %d", constant.Success, constant.OutOf),
		XLabel:        "taux de réussite (verdicts exacts et fondés)", YLabel: "taux d'overclaim",
		XLabelX: (plotLeft + plotRight) / 2, YLabelY: (plotTop + plotBottom) / 2,
		Caption: "Taux de réussite et taux d'overclaim de chaque agent de ce tableau, deux axes, jamais combinés ; chaque point porte le numéro de sa ligne.",
	}
	if name == TableReference {
		v.Caption = "Runs de référence (calibration, pas un classement) : taux de réussite et taux d'overclaim, deux axes ; chaque point porte le numéro de sa ligne."
	}
	step := 1
	if outOf > 20 {
		step = (outOf + 9) / 10
	}
	for s := 0; s <= outOf; s += step {
		v.XTicks = append(v.XTicks, tick{coord(x(s)), fmt.Sprintf("%d/%d", s, outOf)})
	}
	for p := 0; p <= 100; p += 20 {
		v.YTicks = append(v.YTicks, tick{coord(y(float64(p) / 100)), fmt.Sprintf("%d %%", p)})
	}
	type place struct{ x, y string }
	index := map[place]int{}
	var unplaced []string
	for i, r := range rows {
		if r.Overclaim.Rate == nil {
			unplaced = append(unplaced, fmt.Sprintf("%d (%s)", numbers[i], shown(r.Agent)))
			continue
		}
		at := place{coord(x(r.Success.Founded)), coord(y(*r.Overclaim.Rate))}
		label := fmt.Sprint(numbers[i])
		title := fmt.Sprintf("%d. %s : réussite %d / %d, overclaim %s", numbers[i], shown(r.Agent), r.Success.Founded, r.Success.OutOf, percent(*r.Overclaim.Rate))
		if k, ok := index[at]; ok {
			p := &v.Points[k]
			if !slices.Contains(p.numbers, label) {
				p.numbers = append(p.numbers, label)
			}
			p.Title += " ; " + title
			continue
		}
		index[at] = len(v.Points)
		v.Points = append(v.Points, chartPoint{X: at.x, Y: at.y, numbers: []string{label}, Title: title, LabelX: coord(x(r.Success.Founded) + 8)})
	}
	for i := range v.Points {
		v.Points[i].Label = pointLabel(v.Points[i].numbers)
	}
	v.Unplaced = strings.Join(unplaced, ", ")
	var buf bytes.Buffer
	if err := chartTemplate.Execute(&buf, v); err != nil {
		return "", err
	}
	return template.HTML(buf.String()), nil
}

// coord writes a coordinate with one decimal, the same on every platform.
func coord(f float64) string { return fmt.Sprintf("%.1f", f) }
