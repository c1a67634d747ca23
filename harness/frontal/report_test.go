package frontal

import (
	"bytes"
	_ "embed"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/arkforge/proveit-corpus/harness/pgtest"
)

// reportEnv names the file a passing run writes its figures to.
const reportEnv = "PROVEIT_RELIABILITY_REPORT"

func TestMain(m *testing.M) {
	start := time.Now()
	code := m.Run()
	pgtest.Stop()
	if path := os.Getenv(reportEnv); path != "" && code == 0 {
		if err := figures.write(path, time.Since(start)); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", reportEnv, err)
			code = 1
		}
	}
	os.Exit(code)
}

// fault is the row of one fault: what was sent, what came back, how long
// the service took to recover, and the figures its sentence states (one of
// the *Figures types below, by Name).
type fault struct {
	Name, Topology                          string
	Requests, Errors, Mismatches, Tolerated int
	Cut                                     int // answers cut off mid-body
	Refused                                 int // connections refused
	Resent                                  int // calls sent again: no whole answer came back on their connection
	Recovery                                string
	Figures                                 any
}

// seasonFault is the row of one fault of the season service: the
// submissions handed in, what the fault left of their answers, and the
// export they were held to (one of the season*Figures types, or the bad
// calls' rows, by Name).
type seasonFault struct {
	Name, Store, Topology string
	Submissions           int // submission calls made
	Acknowledged          int // answered 200 with a receipt during the fault
	Cut, Refused          int // no answer: cut in flight, or the connection refused
	SentAgain             int // sent once more, the same bytes
	Exported              int // in the close's export, each with the receipt it was answered
	Skipped               string
	Figures               any
}

// loadFigures are a load run's, for the "load" fault.
type loadFigures struct {
	Connections, Checks int
	Elapsed             time.Duration
	Rate                float64
	P50, P99, Max       time.Duration
}

// reloadFigures are a secret rotation's under load, for "reload: secrets"
// and "nginx reload: secrets".
type reloadFigures struct {
	Connections, Requests, Retried int
	AddNext, RetireOld             time.Duration // each reload, until it took effect
	P99, Max                       time.Duration
}

// tamperedFigures are how long the reload took to refuse a tampered tree.
type tamperedFigures struct {
	Refused time.Duration
}

// killFigures are the corpus killed behind the frontal: when each step
// came, from the load's start (Killed) or from the one before.
type killFigures struct {
	Connections, Tolerated, Cut int
	Killed, Restarted, Ready    time.Duration
	Down                        time.Duration // from the kill to the first right answer
	FirstTolerated, Outage      time.Duration // the first 503 body after the kill, and the 503s' span
	LastToReady                 time.Duration // between the last 503 body and the readiness check
	LastBeforeReady             bool
}

// slowFigures are the slow clients of one topology.
type slowFigures struct {
	PerKind, Others                            int
	Cuts                                       []slowCut
	Refusals                                   []kindCount // what Go wrote before cutting, by kind
	BeforeP50, BeforeP99, DuringP50, DuringP99 time.Duration
}

// slowCut is when one kind of slow client was cut off, the first and the
// last of them.
type slowCut struct {
	Kind        string
	First, Last time.Duration
}

// hostileFigures are the hostile targets' run: its summary and its fault.
type hostileFigures struct {
	Calls                 int
	Requests, AllRequests int // a topology, and in all
	BeforeCaddy           int
	Contract, Closed      map[string]int // by topology
	Elapsed               time.Duration
}

// differentialFigures are the differential's counts.
type differentialFigures struct {
	Calls, Requests, Exchanges, Identical, BeforeCaddy int
}

// probeRow is the conformance probe on one topology.
type probeRow struct {
	Topology                 string
	Checks, Passed, Residual int
}

// kindCount is a count of one kind of answer.
type kindCount struct {
	Kind  string
	Count int
}

// replyRow is what one request got on each channel of a table.
type replyRow struct {
	Request  string
	Verdicts []string // one a channel, in the table's order
}

// replyTable is a table of requests by channels.
type replyTable struct {
	Channels []string
	Rows     []replyRow
}

// reportFigures collects what the tests measured, for the report.
type reportFigures struct {
	mu           sync.Mutex
	nginxVersion string
	probes       []probeRow
	differential *differentialFigures
	hostile      *hostileFigures
	beforeCaddy  map[string]int
	faults       []fault
	matrix       []matrixCell
	flood        []floodFigures
	h2Replies    []replyRow
	season       []seasonFault
}

var figures = &reportFigures{beforeCaddy: map[string]int{}}

func (f *reportFigures) add(x fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, x)
}

func (f *reportFigures) addSeason(x seasonFault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.season = append(f.season, x)
}

func (f *reportFigures) probe(topology string, checks, passed, residual int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.probes = append(f.probes, probeRow{topology, checks, passed, residual})
}

func (f *reportFigures) setDifferential(d differentialFigures) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.differential = &d
}

// refusedBeforeCaddy counts answers Caddy alone wrote before its handler.
func (f *reportFigures) refusedBeforeCaddy(kinds map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for kind, n := range kinds {
		f.beforeCaddy[kind] += n
	}
}

func (f *reportFigures) setHostile(h hostileFigures) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hostile = &h
}

func (f *reportFigures) setMatrix(cells []matrixCell) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.matrix = cells
}

func (f *reportFigures) setNginxVersion(v string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nginxVersion = v
}

//go:embed reliability.md.tmpl
var reliabilityTemplate string

// reliabilityPage renders docs/reliability.md; its helpers only format
// figures.
var reliabilityPage = template.Must(template.New("reliability").Funcs(template.FuncMap{
	"ms": ms, "perTopology": perTopology, "join": strings.Join,
	"mb": func(n int64) int64 { return n >> 20 },
}).Parse(reliabilityTemplate))

// reliabilityData is what docs/reliability.md shows: what this run
// measured, and the settings of the attacks it ran.
type reliabilityData struct {
	Date, ReportEnv, OS, Arch, GoVersion, NginxVersion string
	Elapsed                                            time.Duration
	CPUs                                               int
	Probes                                             []probeRow
	Differential                                       *differentialFigures
	Hostile                                            *hostileFigures
	Faults                                             []fault
	Season                                             []seasonFault
	Flood                                              *floodSection
	H2Replies, Matrix                                  replyTable
	Residuals                                          []residualRow
	BeforeCaddy                                        []kindCount
}

// floodSection is the window attack as it was sent, and its runs.
type floodSection struct {
	Conns, Streams, Requests, LegitCalls int
	Target                               string
	Hold, AnswerBound, Starved           time.Duration
	MemoryBound                          int64
	Runs                                 []floodFigures
}

// residualRow is a residual with what this run observed of it.
type residualRow struct {
	ID, Title, Text string
	Measured        bool
	Count           int
}

// write renders docs/reliability.md. A run that skipped a test (go test
// -run) has not measured everything: it writes nothing.
func (f *reportFigures) write(path string, elapsed time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	recorded := map[string]bool{}
	for _, x := range f.faults {
		recorded[x.Name] = true
	}
	for _, x := range f.season {
		recorded["season service: "+x.Name] = true
	}
	season := slices.Clone(f.season)
	slices.SortStableFunc(season, func(a, b seasonFault) int {
		return slices.Index(faultsRecorded, "season service: "+a.Name) - slices.Index(faultsRecorded, "season service: "+b.Name)
	})
	for _, name := range faultsRecorded {
		if !recorded[name] || len(f.probes) < 3 || f.differential == nil || f.hostile == nil || len(f.matrix) == 0 || len(f.flood) < len(floodChannels) || len(f.h2Replies) == 0 {
			return fmt.Errorf("the run did not measure everything (%q, the probe, the differential): run the whole package", name)
		}
	}
	data := reliabilityData{
		Date: time.Now().UTC().Format("2006-01-02"), ReportEnv: reportEnv, Elapsed: elapsed.Round(time.Second),
		OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), NginxVersion: f.nginxVersion,
		Probes: f.probes, Differential: f.differential, Hostile: f.hostile, Faults: f.faults, Season: season,
		Flood: &floodSection{Conns: floodConns, Streams: floodStreams, Requests: floodRequests, LegitCalls: floodLegitCalls,
			Target: floodTarget, Hold: floodHold, AnswerBound: floodAnswerBound, Starved: floodStarved, MemoryBound: floodMemoryBound, Runs: f.flood},
		H2Replies: replyTable{Channels: h2ReplyChannels, Rows: f.h2Replies},
		Matrix:    f.matrixTable(),
	}
	counts := residuals.counts()
	for _, r := range residualList {
		data.Residuals = append(data.Residuals, residualRow{ID: r.id, Title: r.title, Text: r.text, Measured: r.measured, Count: counts[r.id]})
	}
	for _, kind := range slices.Sorted(maps.Keys(f.beforeCaddy)) {
		data.BeforeCaddy = append(data.BeforeCaddy, kindCount{kind, f.beforeCaddy[kind]})
	}
	var b bytes.Buffer
	if err := reliabilityPage.Execute(&b, data); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// matrixTable lays the matrix out: a row a request, a column a channel.
func (f *reportFigures) matrixTable() replyTable {
	var table replyTable
	cells := map[[2]string]matrixCell{}
	var requests []string
	for _, c := range f.matrix {
		ch := c.channel.String()
		if !slices.Contains(table.Channels, ch) {
			table.Channels = append(table.Channels, ch)
		}
		if !slices.Contains(requests, c.request) {
			requests = append(requests, c.request)
		}
		cells[[2]string{c.request, ch}] = c
	}
	for _, r := range requests {
		row := replyRow{Request: r}
		for _, ch := range table.Channels {
			row.Verdicts = append(row.Verdicts, cells[[2]string{r, ch}].verdict())
		}
		table.Rows = append(table.Rows, row)
	}
	return table
}

// verdict names a cell's answer in a few words.
func (c matrixCell) verdict() string {
	a := c.answer
	switch {
	case c.note != "":
		return "n/a (" + c.note + ")"
	case a.Closed:
		return "closed"
	case c.http09:
		return "403 body alone (HTTP/0.9, R6)"
	case a.Raw != nil:
		return "left open: not HTTP"
	}
	if _, open := insideCaddyOnly[c.channel.String()+" × "+c.request]; open && a.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		kind := a.Header.Get("Content-Type")
		if len(a.Body) == 0 {
			kind = "empty body"
		}
		return fmt.Sprintf("**left open**: %d, %s", a.Status, kind)
	}
	return fmt.Sprintf("%d body", a.Status)
}

// faultsRecorded are the faults a full run records.
var faultsRecorded = []string{"load", "reload: secrets", "reload: tampered tree", "nginx reload: secrets",
	"corpus killed", "slow clients", "hostile targets",
	"restart, socket unit", "crash, socket unit", "restart, no socket unit", "replica killed", "both replicas killed",
	"season service: service killed", "season service: replica killed", "season service: bad input"}

// ms formats a duration for the report.
func ms(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
