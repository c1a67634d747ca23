package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// machine describes where the benchmark ran.
type machine struct {
	CPU, Cores, Memory, Kernel, Go, Nginx, Wrk, Python, Caddy string
	LoadBefore                                                string
}

func describeMachine(b *bench) machine {
	m := machine{
		CPU:        field(command("lscpu"), "Model name:"),
		Cores:      strconv.Itoa(runtime.NumCPU()),
		Memory:     memTotal(),
		Kernel:     strings.TrimSpace(command("uname", "-sr")),
		Go:         strings.TrimSpace(command(b.goTool, "version")),
		Nginx:      strings.TrimPrefix(strings.TrimSpace(command(b.nginx, "-v")), "nginx version: "),
		Wrk:        firstLine(command(b.wrk, "-v")),
		Python:     strings.TrimSpace(command(b.python, "--version")),
		Caddy:      firstLine(command(b.caddy, "version")),
		LoadBefore: loadAverage(),
	}
	if n := field(command("lscpu"), "CPU(s):"); n != "" {
		m.Cores = n
	}
	return m
}

// command runs a command and returns what it printed, stdout and stderr.
func command(name string, args ...string) string {
	out, _ := exec.Command(name, args...).CombinedOutput()
	return string(out)
}

// field returns the value of the first "Name: value" line of text.
func field(text, name string) string {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), name); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

func memTotal() string {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "?"
	}
	kb, err := strconv.ParseFloat(strings.TrimSuffix(field(string(data), "MemTotal:"), " kB"), 64)
	if err != nil {
		return "?"
	}
	return fmt.Sprintf("%.1f GiB", kb/1024/1024)
}

// loadAverage is the 1, 5 and 15-minute load average.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// oneMinuteLoad is the 1-minute load average, or 0 when unknown.
func oneMinuteLoad() float64 {
	f := strings.Fields(loadAverage())
	if len(f) == 0 {
		return 0
	}
	load, _ := strconv.ParseFloat(f[0], 64)
	return load
}
