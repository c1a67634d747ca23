package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// profileResult is a CPU profile of a server under load.
type profileResult struct {
	Setup   string
	Seconds int
	// Samples is the CPU time the profile sampled, in seconds; RPS the
	// load's throughput meanwhile: together, CPU time per request.
	Samples float64
	RPS     float64
	// Shares are the cumulative shares of CPU time of the parts of the
	// request path, in the order of shareParts.
	Shares []share
	// Top is pprof's listing of the heaviest functions by flat time.
	Top string
}

type share struct {
	Part    string
	Percent float64
}

// shareParts name the parts of the request path, each by the functions
// whose cumulative time is that part's; when several match (one calling
// another), the largest counts. Parts overlap where one calls another.
var shareParts = []struct {
	part  string
	funcs []string
}{
	{"system calls, all", []string{`^internal/runtime/syscall/linux\.Syscall6$`, `^syscall\.RawSyscall6$`}},
	{"socket writes (responses)", []string{`^net\.\(\*conn\)\.Write$`}},
	{"socket reads (requests)", []string{`^net\.\(\*conn\)\.Read$`}},
	{"log file writes", []string{`^os\.\(\*File\)\.Write$`}},
	{"net/http: reading and parsing requests", []string{`^net/http\.\(\*conn\)\.readRequest$`}},
	{"Caddy's server and middleware chain (handler included)", []string{`caddyhttp\.\(\*Server\)\.ServeHTTP$`}},
	{"Caddy's routes (the server's route list: matchers, subroutes, `invoke`, handler included)", []string{`caddyhttp\.RouteList\.Compile\.wrapRoute\.func1\.1$`}},
	{"the named route (`invoke`, handler included)", []string{`caddyhttp\.\(\*Invoke\)\.ServeHTTP$`}},
	{"Caddy's `respond` handler", []string{`caddyhttp\.StaticResponse\.ServeHTTP$`, `caddyhttp\.\(\*StaticResponse\)\.ServeHTTP$`}},
	{"access log (Caddy's logRequest: zap JSON encoding, filter, write)", []string{`caddyhttp\.\(\*Server\)\.logRequest$`}},
	{"the module's ServeHTTP (telemetry included)", []string{`caddy-module\.\(\*Handler\)\.ServeHTTP$`}},
	{"the module's telemetry record (encoding and write)", []string{`caddy-module\.\(\*Handler\)\.log$`}},
	{"garbage collection (background mark workers)", []string{`^runtime\.gcBgMarkWorker$`}},
	{"memory allocation (mallocgc)", []string{`^runtime\.mallocgc$`}},
}

// profiles profiles the corpus server with the shipped Caddyfile, then the
// `respond` floor, under the same load.
func (b *bench) profiles(c *corpusSet) ([]*profileResult, error) {
	var results []*profileResult
	for _, key := range []string{keyCorpus, keyRespond} {
		r, err := b.profile(c, setupOf(key))
		if err != nil {
			return results, err
		}
		results = append(results, r)
	}
	return results, nil
}

// profile runs a Caddy setup under wrk and takes a CPU profile through
// Caddy's admin endpoint (/debug/pprof/profile).
func (b *bench) profile(c *corpusSet, st setup) (*profileResult, error) {
	b.log("profiling %s under load for %s", st.Name, b.profileTime)
	mix, err := b.writeMix(c)
	if err != nil {
		return nil, err
	}
	s, err := b.startServer(c, st)
	if err != nil {
		return nil, err
	}
	defer s.Stop()
	seconds := int(b.profileTime.Seconds())
	var wg sync.WaitGroup
	var loadErr error
	var load *closedResult
	wg.Go(func() { load, loadErr = b.runWrk(s, mix, b.profileTime+3*time.Second) })
	time.Sleep(time.Second)
	file := filepath.Join(b.work, "cpu.pprof")
	fetchErr := fetch(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", s.Admin, seconds), file, b.profileTime+30*time.Second)
	wg.Wait()
	if fetchErr != nil {
		return nil, fetchErr
	}
	if loadErr != nil {
		return nil, loadErr
	}
	cum, err := b.pprof(file, "-top", "-cum", "-nodecount=1000")
	if err != nil {
		return nil, err
	}
	flat, err := b.pprof(file, "-top", "-nodecount=25")
	if err != nil {
		return nil, err
	}
	r := &profileResult{Setup: st.Name, Seconds: seconds, Top: flat, Samples: totalSamples(cum), RPS: load.RPS()}
	shares := parseTop(cum)
	for _, p := range shareParts {
		var pct float64
		for name, v := range shares {
			for _, f := range p.funcs {
				if regexp.MustCompile(f).MatchString(name) {
					pct = max(pct, v)
				}
			}
		}
		r.Shares = append(r.Shares, share{p.part, pct})
	}
	return r, nil
}

// fetch saves the body of a GET.
func fetch(url, file string, timeout time.Duration) error {
	client := http.Client{Timeout: timeout}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return fmt.Errorf("%s: %s: %s", url, resp.Status, body)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	return err
}

// pprof runs go tool pprof on a profile and returns its report.
func (b *bench) pprof(file string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.goTool, append(append([]string{"tool", "pprof"}, args...), file)...)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go tool pprof: %v", err)
	}
	return string(out), nil
}

// totalSamples reads the sampled CPU time, in seconds, from the header of
// pprof's -top listing ("Total samples = 7.96s").
func totalSamples(listing string) float64 {
	m := regexp.MustCompile(`Total samples = ([0-9.]+)(ms|s)`).FindStringSubmatch(listing)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	if m[2] == "ms" {
		v /= 1000
	}
	return v
}

// MicrosPerRequest is the CPU time a part took per request, in µs.
func (pr *profileResult) MicrosPerRequest(percent float64) float64 {
	if pr.RPS == 0 || pr.Seconds == 0 {
		return 0
	}
	return percent / 100 * pr.Samples * 1e6 / (pr.RPS * float64(pr.Seconds))
}

// parseTop reads pprof's -top listing: function name to cumulative percent.
func parseTop(listing string) map[string]float64 {
	shares := map[string]float64{}
	for _, line := range strings.Split(listing, "\n") {
		f := strings.Fields(line)
		// flat flat% sum% cum cum% name...
		if len(f) < 6 || !strings.HasSuffix(f[4], "%") {
			continue
		}
		pct, err := strconv.ParseFloat(strings.TrimSuffix(f[4], "%"), 64)
		if err != nil {
			continue
		}
		shares[strings.Join(f[5:], " ")] = pct
	}
	return shares
}
