// Package loadgen drives an HTTP/1.1 server on loopback at a fixed request
// rate, open loop, and measures the latency distribution: the part of the
// benchmark that wrk, which only runs closed loop, cannot do. Main is its
// command-line form, which prints the result as JSON.
//
// Requests are due at fixed intervals whatever the server does; the latency
// of each is measured from when it was due, not from when a connection was
// free to send it, so a server that falls behind shows its queue in the
// figures instead of slowing the load down (no coordinated omission).
//
//	-addr 127.0.0.1:8080 -targets mix.txt -rate 2000 -duration 10s -conns 50
//
// Each line of the targets file is "+ /path" (sent with the secret header)
// or "- /path" (without it); lines are sent in turn. The secret comes from
// the environment variable BENCH_SECRET, never from the command line.
package loadgen

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
)

// SecretEnv names the variable holding the secret header's value.
const SecretEnv = "BENCH_SECRET"

// Main runs the command line args (flags above, without the program name)
// and prints the result as JSON to stdout; it returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	var c Config
	flags := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	flags.SetOutput(stderr)
	targets := flags.String("targets", "", "file of targets, one \"+ /path\" or \"- /path\" a line")
	flags.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "server address (loopback)")
	flags.Float64Var(&c.Rate, "rate", 1000, "requests a second")
	flags.DurationVar(&c.Duration, "duration", 10*time.Second, "how long requests are sent")
	flags.IntVar(&c.Conns, "conns", 50, "connections")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	requests, err := ReadTargets(*targets, c.Addr, os.Getenv(SecretEnv))
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	c.Requests = requests
	result, err := Run(c)
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(result); err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 1
	}
	return 0
}

// Config is one run.
type Config struct {
	Addr     string
	Requests [][]byte // raw requests, sent in turn
	Rate     float64
	Duration time.Duration
	Conns    int
}

// Result is what a run measured. Latencies are in milliseconds.
type Result struct {
	Rate      float64        `json:"rate"`
	Sent      int            `json:"sent"`
	Completed int            `json:"completed"`
	Errors    int            `json:"errors"`
	Status    map[string]int `json:"status"`
	Achieved  float64        `json:"achieved_rate"`
	P50       float64        `json:"p50_ms"`
	P99       float64        `json:"p99_ms"`
	P999      float64        `json:"p999_ms"`
	Max       float64        `json:"max_ms"`
}

// grace is how long after the last request is due answers are still awaited.
const grace = 5 * time.Second

// job is one request due at a time.
type job struct {
	due     time.Time
	request []byte
}

// Run sends the requests at the configured rate and waits for the answers.
func Run(c Config) (*Result, error) {
	if c.Rate <= 0 || c.Duration <= 0 || c.Conns <= 0 || len(c.Requests) == 0 {
		return nil, fmt.Errorf("want a positive rate, duration, connection count and at least one request")
	}
	total := int(c.Rate * c.Duration.Seconds())
	interval := time.Duration(float64(time.Second) / c.Rate)
	jobs := make(chan job, total)
	deadline := time.Now().Add(c.Duration + grace)
	workers := make([]worker, c.Conns)
	var wg sync.WaitGroup
	for i := range workers {
		w := &workers[i]
		w.addr, w.deadline, w.status = c.Addr, deadline, map[int]int{}
		wg.Go(func() { w.run(jobs) })
	}
	start := time.Now()
	for i := range total {
		due := start.Add(time.Duration(i) * interval)
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		jobs <- job{due: due, request: c.Requests[i%len(c.Requests)]}
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)

	r := &Result{Rate: c.Rate, Sent: total, Status: map[string]int{}}
	var latencies []time.Duration
	for _, w := range workers {
		latencies = append(latencies, w.latencies...)
		r.Errors += w.errors
		for code, n := range w.status {
			r.Status[fmt.Sprint(code)] += n
		}
	}
	r.Completed = len(latencies)
	r.Achieved = float64(r.Completed) / elapsed.Seconds()
	slices.Sort(latencies)
	r.P50 = millis(Percentile(latencies, 50))
	r.P99 = millis(Percentile(latencies, 99))
	r.P999 = millis(Percentile(latencies, 99.9))
	r.Max = millis(Percentile(latencies, 100))
	return r, nil
}

// Percentile returns the p-th percentile (nearest rank) of sorted durations.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// worker owns one keep-alive connection and sends the jobs it takes.
type worker struct {
	addr      string
	deadline  time.Time
	conn      net.Conn
	reader    *bufio.Reader
	latencies []time.Duration
	status    map[int]int
	errors    int
}

func (w *worker) run(jobs <-chan job) {
	defer func() {
		if w.conn != nil {
			w.conn.Close()
		}
	}()
	for j := range jobs {
		if time.Now().After(w.deadline) {
			w.errors++ // never answered in time: drained, not sent
			continue
		}
		status, err := w.do(j.request)
		if err != nil {
			w.errors++
			if w.conn != nil {
				w.conn.Close()
				w.conn = nil
			}
			continue
		}
		w.latencies = append(w.latencies, time.Since(j.due))
		w.status[status]++
	}
}

func (w *worker) do(request []byte) (int, error) {
	if w.conn == nil {
		conn, err := net.DialTimeout("tcp", w.addr, time.Second)
		if err != nil {
			return 0, err
		}
		_ = conn.SetDeadline(w.deadline)
		w.conn, w.reader = conn, bufio.NewReader(conn)
	}
	if _, err := w.conn.Write(request); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(w.reader, nil)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.Close {
		w.conn.Close()
		w.conn = nil
	}
	return resp.StatusCode, err
}

// ReadTargets renders each line of the targets file as a raw request.
func ReadTargets(file, addr, secret string) ([][]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var requests [][]byte
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		mark, path, ok := strings.Cut(line, " ")
		if !ok || (mark != "+" && mark != "-") || !strings.HasPrefix(path, "/") {
			return nil, fmt.Errorf("%s:%d: want \"+ /path\" or \"- /path\"", file, i+1)
		}
		requests = append(requests, Request(addr, path, mark == "+", secret))
	}
	return requests, nil
}

// Request renders a GET of path, with the secret header when authenticated.
func Request(host, path string, authenticated bool, secret string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n", path, host)
	if authenticated {
		fmt.Fprintf(&b, "%s: %s\r\n", corpus.SecretHeader, secret)
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}
