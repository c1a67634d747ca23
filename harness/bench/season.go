package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/pgtest"
	"github.com/arkforge/proveit-corpus/harness/seasonload"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// seasonBound: during a deadline, the season service records submissions
// at no less than this share of the rate its store alone commits the same
// rows: what HTTP, the token's look-up and the entry check add stays small
// beside a durable insert.
const seasonBound = 0.8

// seasonNarrative is the bytes of each submission's narrative: a real
// submission's few KiB.
const seasonNarrative = 2048

// seasonRun is the season service's deadline, measured on each store.
type seasonRun struct {
	Entrants, Tasks, Conns, Narrative int
	Rounds                            int // a store's rounds
	ServerCPU, LoadCPU                string
	FileSystem                        string // of the scratch folder, where SQLite's file is
	Rows                              []*seasonRow
}

// QuietEnough and Attempts are the serving runs' rule for a disturbed
// run, which the deadline follows.
func (r *seasonRun) QuietEnough() float64 { return quietEnough }
func (r *seasonRun) Attempts() int        { return attempts }

// Submissions is how many submissions a deadline hands in.
func (r *seasonRun) Submissions() int { return r.Entrants * r.Tasks }

// seasonRow is the deadline on one store: the service, then the store
// alone on the same rows.
type seasonRow struct {
	Store   string // "SQLite", "PostgreSQL 15.8"
	Skipped string // why the row was not measured
	// Enrollment is how long the crowd's enrollments took, before the
	// deadline, untimed in the figures below.
	Enrollment time.Duration
	Counts     []seasonload.Count
	Elapsed    time.Duration // the surge, first send to last answer
	Rate       float64       // answered submissions per second
	P50, P99   time.Duration
	Max        time.Duration
	Other      float64 // others' CPU during the surge, in cores
	// Exported is the acknowledged submissions found in the close's
	// export, byte for byte with their receipts.
	Exported int
	// The store alone.
	StoreElapsed       time.Duration
	StoreRate          float64
	StoreP50, StoreP99 time.Duration
	StoreErrors        int
	StoreOther         float64
	// Attempts is how many times the round kept was measured, the
	// quietest kept.
	Attempts int
	// Rounds are the ratios of the store's rounds, in the order they ran;
	// the row is the round of their median.
	Rounds []float64
}

// Ratio is the service's rate over the store's.
func (r *seasonRow) Ratio() float64 {
	if r.StoreRate == 0 {
		return 0
	}
	return r.Rate / r.StoreRate
}

// RoundRatios lists the rounds' ratios, in the order they ran.
func (r *seasonRow) RoundRatios() string {
	parts := make([]string, len(r.Rounds))
	for i, ratio := range r.Rounds {
		parts[i] = fmt.Sprintf("%.2f", ratio)
	}
	return strings.Join(parts, ", ")
}

// Outcomes says what the submissions got, by kind.
func (r *seasonRow) Outcomes() string {
	var parts []string
	for _, c := range r.Counts {
		parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Kind))
	}
	return strings.Join(parts, ", ")
}

// measureSeason runs a deadline of n enrollments on SQLite, then on
// PostgreSQL when Debian's binaries are there.
func (b *bench) measureSeason(n int) (*seasonRun, error) {
	dir, err := os.MkdirTemp(b.work, "season-")
	if err != nil {
		return nil, err
	}
	tasks, err := seasonload.Tasks(seasonload.Track)
	if err != nil {
		return nil, err
	}
	run := &seasonRun{Entrants: n, Tasks: len(tasks), Conns: b.seasonConns, Narrative: seasonNarrative, Rounds: max(1, b.seasonRounds),
		ServerCPU: b.serverCPU, LoadCPU: b.loadCPU, FileSystem: fileSystem(dir)}
	folder, err := seasonload.NewFolder(filepath.Dir(b.caddyfile), filepath.Join(dir, "saison-1"), seasonload.OpenWindow(time.Now()))
	if err != nil {
		return nil, err
	}
	caddyfile := filepath.Join(dir, "Caddyfile")
	if err := seasonload.WriteCaddyfile(b.caddyfile, caddyfile); err != nil {
		return nil, err
	}
	tl, err := seasonload.StartTrustLayer()
	if err != nil {
		return nil, err
	}
	defer tl.Close()
	d := &deadline{b: b, run: run, folder: folder, caddyfile: caddyfile, tl: tl, tasks: tasks}

	sqlite := filepath.Join(dir, "sqlite")
	if err := os.MkdirAll(sqlite, 0o700); err != nil {
		return nil, err
	}
	row, err := d.rounds(func(run int, storeFirst bool) (*seasonRow, error) {
		in := filepath.Join(sqlite, strconv.Itoa(run))
		if err := os.MkdirAll(in, 0o700); err != nil {
			return nil, err
		}
		return d.measure("SQLite", filepath.Join(in, "service.db"), filepath.Join(in, "store.db"), filepath.Join(in, "run"), storeFirst)
	})
	if err != nil {
		return nil, fmt.Errorf("SQLite: %w", err)
	}
	run.Rows = append(run.Rows, row)

	// Without Debian's binaries the row says so; a failure too, and the
	// SQLite row stands.
	row, err = d.measurePostgres(filepath.Join(dir, "postgres"))
	switch {
	case isNoPostgres(err):
		row = &seasonRow{Store: "PostgreSQL", Skipped: err.Error()}
	case err != nil:
		b.log("season / PostgreSQL: %v", err)
		row = &seasonRow{Store: "PostgreSQL", Skipped: "failed: " + err.Error()}
	}
	run.Rows = append(run.Rows, row)
	return run, nil
}

// measurePostgres runs the deadline on a PostgreSQL server of the
// benchmark's own, the service and the store alone each on a database of
// its own.
func (d *deadline) measurePostgres(dir string) (*seasonRow, error) {
	// It dies with the benchmark on Linux alone.
	if runtime.GOOS != "linux" {
		return nil, noPostgres("the benchmark's PostgreSQL server runs on Linux only")
	}
	// PostgreSQL's durable defaults: what the season's part measures is a
	// commit on disk, which the tests' server, never syncing, is no
	// yardstick for.
	pg, err := pgtest.Start(pgtest.Options{Durable: true, CPUs: d.b.serverCPU})
	var absent *pgtest.NoServerError
	switch {
	case errors.As(err, &absent):
		return nil, noPostgres("PostgreSQL's binaries are absent (apt-get install postgresql)")
	case err != nil:
		return nil, err
	}
	defer pg.Stop()
	name := pg.Version()
	if name == "" {
		name = "PostgreSQL"
	}
	return d.rounds(func(run int, storeFirst bool) (*seasonRow, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		service, err := pg.NewDatabase(ctx)
		if err != nil {
			return nil, err
		}
		store, err := pg.NewDatabase(ctx)
		if err != nil {
			return nil, err
		}
		return d.measure(name, service, store, filepath.Join(dir, strconv.Itoa(run)), storeFirst)
	})
}

// noPostgres says why there is no server to start: a skip, not a failure.
type noPostgres string

func (e noPostgres) Error() string { return string(e) }

// isNoPostgres tells a server that could not start for want of one.
func isNoPostgres(err error) bool {
	var e noPostgres
	return errors.As(err, &e)
}

// rounds measures a store's deadline in d.run.Rounds rounds, the
// service and the store alone back to back in each, the store alone first
// in every other round, so that the disk's drift over minutes (the store
// alone ran from 1,878 to 3,114 submissions a second in runs an hour apart
// on a two-core virtual machine) weighs on each round's ratio as little as
// it can and on neither side more. It keeps the round whose ratio is the
// median, with every round's ratio.
// measure is given a number no other run of this store was, and each
// round is measured as the serving runs are: again, on fresh databases,
// while other processes took more than quietEnough, the quietest kept.
func (d *deadline) rounds(measure func(run int, storeFirst bool) (*seasonRow, error)) (*seasonRow, error) {
	var rows []*seasonRow
	run := 0
	for round := range d.run.Rounds {
		attempt := 0
		row, _, err := quietest(d.b, func() (*seasonRow, float64, error) {
			attempt++
			run++
			row, err := measure(run, round%2 == 1)
			if err != nil {
				return nil, 0, err
			}
			return row, max(row.Other, row.StoreOther), nil
		})
		if err != nil {
			return nil, err
		}
		row.Attempts = attempt
		rows = append(rows, row)
	}
	return medianRound(rows), nil
}

// medianRound is the round whose ratio is the median of rows' (the lower
// middle one of an even count), given every round's ratio in order.
func medianRound(rows []*seasonRow) *seasonRow {
	ratios := make([]float64, len(rows))
	for i, row := range rows {
		ratios[i] = row.Ratio()
	}
	median := lowerMedian(slices.Clone(ratios))
	kept := rows[slices.Index(ratios, median)]
	kept.Rounds = ratios
	return kept
}

// deadline is what each store's deadline shares.
type deadline struct {
	b         *bench
	run       *seasonRun
	folder    *seasonload.Folder
	caddyfile string
	tl        *seasonload.TrustLayer
	tasks     []string
}

// measure enrolls the crowd through the service on database, runs the
// deadline through the service and the same rows through the store alone
// on storeDatabase, back to back (the store alone first if storeFirst),
// then checks the service's export.
func (d *deadline) measure(name, database, storeDatabase, dir string, storeFirst bool) (*seasonRow, error) {
	b := d.b
	row := &seasonRow{Store: name}
	port, err := servertest.PickPort()
	if err != nil {
		return nil, err
	}
	svc := seasonload.Service{Folder: d.folder, Database: database, TrustLayer: d.tl.URL, Port: port}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	server, err := servertest.Launch(servertest.Options{Binary: b.caddy, Caddyfile: d.caddyfile, Dir: dir, CPUs: b.serverCPU,
		Secrets: []string{b.secret}, Env: svc.Env()})
	if err != nil {
		return nil, err
	}
	defer server.Stop()
	if err := seasonload.WaitReady(svc.URL(), time.Minute); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, tail(server.Output(), 2000))
	}
	transport := &http.Transport{MaxIdleConnsPerHost: d.run.Conns, MaxConnsPerHost: d.run.Conns}
	client := &participant.Season{URL: svc.URL(), Number: seasonload.Number, HTTP: &http.Client{Transport: transport, Timeout: time.Minute}}

	b.log("season / %s: enrolling %d participants through the service", name, d.run.Entrants)
	start := time.Now()
	entrants, err := seasonload.Enroll(d.tl, client, seasonload.Track.Name, d.run.Entrants, d.run.Conns)
	if err != nil {
		return nil, err
	}
	row.Enrollment = time.Since(start)
	subs := seasonload.Deadline(entrants, d.tasks, d.run.Narrative, 1)

	var result *seasonload.Result
	throughService := func() error {
		b.log("season / %s: %d submissions at once, %d clients", name, len(subs), d.run.Conns)
		writeBack()
		var err error
		row.Other, err = b.pinned(b.loadCPU, func() error {
			result = seasonload.Surge{Client: client, Conns: d.run.Conns}.Run(subs)
			return nil
		})
		if err != nil {
			return err
		}
		row.Counts, row.Elapsed, row.Rate = result.Counts(), result.Elapsed, result.Rate()
		row.P50, row.P99, row.Max = result.Latency(50), result.Latency(99), result.Latency(100)
		return nil
	}
	// The store alone: the same enrollments, then the same bodies.
	ctx := context.Background()
	alone := func() error {
		store, err := seasonstore.Open(ctx, storeDatabase, seasonstore.Options{})
		if err != nil {
			return err
		}
		defer store.Close()
		if err := seasonload.EnrollInStore(ctx, store, seasonload.Track.Name, entrants); err != nil {
			return err
		}
		b.log("season / %s: the same %d submissions to the store alone, %d goroutines", name, len(subs), d.run.Conns)
		writeBack()
		var stored *seasonload.Result
		row.StoreOther, err = b.pinned(b.serverCPU, func() error {
			stored = seasonload.StoreSurge(ctx, store, d.folder.ReceiptKey, subs, d.run.Conns)
			return nil
		})
		if err != nil {
			return err
		}
		row.StoreElapsed, row.StoreRate = stored.Elapsed, stored.Rate()
		row.StoreP50, row.StoreP99 = stored.Latency(50), stored.Latency(99)
		row.StoreErrors = len(subs) - stored.Acknowledged()
		return nil
	}
	sides := []func() error{throughService, alone}
	if storeFirst {
		sides[0], sides[1] = sides[1], sides[0]
	}
	for _, side := range sides {
		if err := side(); err != nil {
			return nil, err
		}
	}
	transport.CloseIdleConnections()
	server.Stop()

	// Every acknowledged submission in the close's export, with its receipt.
	public := d.folder.ReceiptKey.Public().(ed25519.PublicKey)
	export := filepath.Join(dir, "export")
	if err := os.Mkdir(export, 0o700); err != nil {
		return nil, err
	}
	if err := seasonload.Export(ctx, database, seasonload.Track.Name, public, export); err != nil {
		return nil, err
	}
	audit, err := seasonload.CheckExport(export, seasonload.Track.Name, public, subs, result.Outcomes)
	if err != nil {
		return nil, fmt.Errorf("the service's export: %w", err)
	}
	row.Exported = audit.Acknowledged
	if err := os.RemoveAll(export); err != nil {
		return nil, err
	}
	return row, nil
}

// pinned runs f with this process pinned to cpus, every thread of it, and
// Go's scheduler sized to them, as the servers are; it returns the CPU,
// in cores, other processes took meanwhile.
func (b *bench) pinned(cpus string, f func() error) (float64, error) {
	all := fmt.Sprintf("0-%d", runtime.NumCPU()-1)
	if err := setAffinity(cpus); err != nil {
		return 0, err
	}
	previous := runtime.GOMAXPROCS(cpuCount(cpus))
	defer func() {
		runtime.GOMAXPROCS(previous)
		if err := setAffinity(all); err != nil {
			b.log("%v", err)
		}
	}()
	return foreignCPU(f)
}

// setAffinity pins every thread of this process to cpus (taskset -a -p);
// threads started later inherit it.
func setAffinity(cpus string) error {
	out, err := exec.Command("taskset", "-a", "-p", "-c", cpus, strconv.Itoa(os.Getpid())).CombinedOutput()
	if err != nil {
		return fmt.Errorf("taskset -a -p -c %s: %v: %s", cpus, err, bytes.TrimSpace(out))
	}
	return nil
}

// cpuCount is how many CPUs a taskset list names ("0", "0-3", "0,2").
func cpuCount(list string) int {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := strconv.Atoi(lo)
		z, errZ := strconv.Atoi(hi)
		switch {
		case !isRange && errA == nil:
			n++
		case isRange && errA == nil && errZ == nil && z >= a:
			n += z - a + 1
		}
	}
	return max(n, 1)
}

// fileSystem names the file system dir is on (stat -f), "" where that
// does not say.
func fileSystem(dir string) string {
	out, err := exec.Command("stat", "-f", "-c", "%T", dir).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// seasonTargets are the season service's goals on this run.
func (r *seasonRun) targets() []target {
	var ts []target
	for _, row := range r.Rows {
		if row.Skipped != "" {
			continue
		}
		ts = append(ts, target{Name: fmt.Sprintf("season service on %s: submissions/s during a deadline ≥ %.1f × its store's own durable inserts of the same rows", row.Store, seasonBound),
			Met: row.Ratio() >= seasonBound, Measured: fmt.Sprintf("%.2f× (%.0f vs %.0f submissions/s)", row.Ratio(), row.Rate, row.StoreRate)})
	}
	return ts
}

// onlySeason runs the season service's part alone and prints its section
// and goals, writing no document.
func (b *bench) onlySeason() error {
	r, err := b.measureSeason(b.seasonEntrants)
	if err != nil {
		return err
	}
	return printPart("season", r, r.targets())
}
