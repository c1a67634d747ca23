package index

import (
	"fmt"
	"slices"
	"strings"
)

// The chart of one table: each ranked agent at its success (x) and its
// overclaim (y), the constant-best-answer success marked; an SVG drawn into
// the page, with no script, that scales to the width of a phone. Every
// agent has its own mark: agents at the same place (equal figures) are
// drawn side by side around it, none hidden under another, and the legend
// under the chart names each agent by its row's number. Agents with no
// rendered assertion have no overclaim to place: the legend says so.
const (
	chartWidth  = 600
	chartHeight = 400
	plotLeft    = 64
	plotRight   = 560
	plotTop     = 34
	plotBottom  = 334
	markRadius  = 6
	// markStep is the distance between the centres of two marks of one
	// place: their diameter and a gap, so that both are seen.
	markStep = 2*markRadius + 3
	// markColumns is how many marks of one place stand in a row; more
	// stand in rows above.
	markColumns = 4
)

type chartMark struct {
	ID, X, Y, Title string
}

type chartLabel struct {
	X, Y, Anchor, Text string
}

// chartPlace is the agents at one place of the chart.
type chartPlace struct {
	Marks   []chartMark
	Label   chartLabel
	x, y    float64
	numbers []string // the rows' numbers, each once
	titles  []string
}

// maxLabelled is how many row numbers a place's label lists before it says
// how many more it stands for: the legend names them all.
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
	Constant              chartLabel
	ConstantLegend        string
	Places                []chartPlace
	Legend                []string
	XLabel, YLabel        string
	XLabelX, YLabelY      int
}

// chart places a table's rows; numbers are the rows' numbers in the table
// (the rank in the community table). The pages' template draws the view
// ("chart"), escaping each value in its context: the view holds strings
// and numbers, no markup.
func chart(name string, rows []Row, numbers []int, constant Constant) chartView {
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
		ConstantX:      coord(x(constant.Success)),
		ConstantLegend: "meilleure réponse constante : " + constantSuccess(constant) + " (verdict « " + word(constant.Verdict) + " » partout, sans un appel)",
		XLabel:         "taux de réussite (verdicts exacts et fondés)", YLabel: "taux d'overclaim",
		XLabelX: (plotLeft + plotRight) / 2, YLabelY: (plotTop + plotBottom) / 2,
		Caption: "Taux de réussite et taux d'overclaim de chaque agent de ce tableau, deux axes, jamais combinés ; chaque point porte le numéro de sa ligne, et des agents de mêmes valeurs ont chacun leur point, côte à côte.",
	}
	if name == TableReference {
		v.Caption = "Runs de référence (calibration, pas un classement) : taux de réussite et taux d'overclaim, deux axes ; chaque point porte le numéro de sa ligne."
	}
	// The constant's label stands above the plot, on the side of its line
	// that has room.
	v.Constant = chartLabel{X: coord(x(constant.Success) + 4), Y: coord(plotTop - 10), Anchor: "start", Text: "réponse constante"}
	if x(constant.Success) > (plotLeft+plotRight)/2 {
		v.Constant = chartLabel{X: coord(x(constant.Success) - 4), Y: coord(plotTop - 10), Anchor: "end", Text: "réponse constante"}
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
	for i, r := range rows {
		number := fmt.Sprint(numbers[i])
		if r.Overclaim.Rate == nil {
			v.Legend = append(v.Legend, fmt.Sprintf("%s. %s : réussite %d / %d, aucune assertion rendue, donc pas de taux d'overclaim à placer.",
				number, shown(r.Agent), r.Success.Founded, r.Success.OutOf))
			continue
		}
		title := fmt.Sprintf("%s. %s : réussite %d / %d, overclaim %s", number, shown(r.Agent), r.Success.Founded, r.Success.OutOf, percent(*r.Overclaim.Rate))
		v.Legend = append(v.Legend, title+".")
		px, py := x(r.Success.Founded), y(*r.Overclaim.Rate)
		at := place{coord(px), coord(py)}
		k, ok := index[at]
		if !ok {
			k = len(v.Places)
			index[at] = k
			v.Places = append(v.Places, chartPlace{x: px, y: py})
		}
		p := &v.Places[k]
		p.Marks = append(p.Marks, chartMark{ID: r.ID, Title: title})
		if !slices.Contains(p.numbers, number) {
			p.numbers = append(p.numbers, number)
		}
	}
	for i := range v.Places {
		v.Places[i].layout()
	}
	return v
}

// layout sets the marks of a place side by side around it, markColumns a
// row and the next rows towards the middle of the plot (an overclaim of
// 0 % is on the axis), and its label beside them, on the side the plot
// has room.
func (p *chartPlace) layout() {
	n := len(p.Marks)
	towards := -1.0 // up
	if p.y < (plotTop+plotBottom)/2 {
		towards = 1
	}
	for k := range p.Marks {
		row, col := k/markColumns, k%markColumns
		inRow := min(markColumns, n-row*markColumns)
		dx := (float64(col) - float64(inRow-1)/2) * markStep
		p.Marks[k].X = coord(p.x + dx)
		p.Marks[k].Y = coord(p.y + towards*float64(row)*markStep)
	}
	half := float64(min(n, markColumns)-1) / 2 * markStep
	p.Label = chartLabel{X: coord(p.x + half + markRadius + 4), Y: coord(p.y + 5), Anchor: "start", Text: pointLabel(p.numbers)}
	if p.x > (plotLeft+plotRight)/2 {
		p.Label.X, p.Label.Anchor = coord(p.x-half-markRadius-4), "end"
	}
}

// coord writes a coordinate with one decimal, the same on every platform.
func coord(f float64) string { return fmt.Sprintf("%.1f", f) }
