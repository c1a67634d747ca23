package corpushandler

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/DeRuina/timberjack"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"
	"go.uber.org/zap"
)

func init() {
	caddy.RegisterModule(TelemetryFile{})
}

// TelemetryFile is a log writer that appends records to a file through a
// buffer, written out at least every FlushInterval and when Caddy closes the
// writer. The telemetry writes one record a call: written one by one, each
// costs a system call, a good part of a call's time (docs/performance.md).
//
// Records reach the file in order, never interleaved, and never split: a
// record that does not fit in what is left of the buffer waits for the
// next write-out, so that a roll (below) falls between two records. Nothing
// is lost on a reload, which keeps the writer open as long as a
// configuration uses the same file, nor on a clean exit, which writes the
// buffer out after the servers have stopped; a crash loses at most the last
// FlushInterval of records.
//
// The file is rolled as Caddy's own file writer rolls its logs, with the
// same library and options: when it reaches RollSizeMB it is renamed aside
// with the time in its name and a new one is started; the oldest rolled
// files beyond RollKeep, or older than RollKeepDays, are deleted. Unlike
// Caddy's, it deletes nothing unless told to, the telemetry being the
// season's journal of calls, archived at its close; and it compresses a
// rolled file only when told to (RollCompression): compressing runs in the
// server's process, on the CPUs that answer calls, and while it runs the
// calls wait behind it (docs/performance-analysis.md, "Where the goals
// stand").
//
// Nothing is created before the first record is written out: validating a
// configuration (`caddy validate`) touches no file.
type TelemetryFile struct {
	// Filename is the file records are appended to, created with mode 0600
	// (and its folder with 0700) when missing.
	Filename string `json:"filename"`

	// FlushInterval bounds how long a record may wait in memory. Default: 100ms.
	FlushInterval caddy.Duration `json:"flush_interval,omitempty"`

	// BufferSize is the buffer's size in bytes; a larger record is written
	// directly. Default: 64 KiB.
	BufferSize int `json:"buffer_size,omitempty"`

	// Roll toggles rolling, on by default.
	Roll *bool `json:"roll,omitempty"`

	// RollSizeMB is the size, in MiB, at which the file is rolled. Default: 100.
	RollSizeMB int `json:"roll_size_mb,omitempty"`

	// RollCompression compresses each rolled file: "none", "gzip" or
	// "zstd", as Caddy's file writer names them. Default: "none".
	RollCompression string `json:"roll_compression,omitempty"`

	// RollKeep is how many rolled files are kept. Default: all.
	RollKeep int `json:"roll_keep,omitempty"`

	// RollKeepDays is how many days a rolled file is kept. Default: all.
	RollKeepDays int `json:"roll_keep_days,omitempty"`
}

// Defaults of a TelemetryFile; the roll size is that of Caddy's file writer.
const (
	defaultFlushInterval = 100 * time.Millisecond
	defaultBufferSize    = 64 << 10
	defaultRollSizeMB    = 100
)

// CaddyModule returns the Caddy module information.
func (TelemetryFile) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.logging.writers.proveit_file",
		New: func() caddy.Module { return new(TelemetryFile) },
	}
}

// Provision sets the defaults.
func (f *TelemetryFile) Provision(caddy.Context) error {
	if f.FlushInterval <= 0 {
		f.FlushInterval = caddy.Duration(defaultFlushInterval)
	}
	if f.BufferSize <= 0 {
		f.BufferSize = defaultBufferSize
	}
	if f.RollSizeMB <= 0 {
		f.RollSizeMB = defaultRollSizeMB
	}
	return nil
}

// Validate checks the configuration.
func (f *TelemetryFile) Validate() error {
	if f.Filename == "" {
		return fmt.Errorf("proveit_file: no filename")
	}
	// A write-out larger than the roll size could not be written at all.
	if f.rolls() && int64(f.BufferSize) > int64(f.RollSizeMB)<<20 {
		return fmt.Errorf("proveit_file: buffer_size %d exceeds roll_size", f.BufferSize)
	}
	if err := checkCompression(f.compression()); err != nil {
		return fmt.Errorf("proveit_file: %w", err)
	}
	return nil
}

// rollCompressions are the values of RollCompression.
var rollCompressions = []string{"none", "gzip", "zstd"}

// checkCompression refuses a value that is not one of rollCompressions.
func checkCompression(value string) error {
	if !slices.Contains(rollCompressions, value) {
		return fmt.Errorf("roll_compression: %q is none of %s", value, strings.Join(rollCompressions, ", "))
	}
	return nil
}

// compression is the compression of rolled files.
func (f TelemetryFile) compression() string {
	if f.RollCompression == "" {
		return "none"
	}
	return f.RollCompression
}

func (f TelemetryFile) String() string { return "proveit_file:" + f.Filename }

func (f TelemetryFile) rolls() bool { return f.Roll == nil || *f.Roll }

// WriterKey identifies the file: configurations that name the same one
// share one open writer, which a reload therefore never closes.
func (f TelemetryFile) WriterKey() string { return "proveit_file:" + f.Filename }

// OpenWriter starts the periodic write-out; the file itself is opened with
// the first write-out that holds a record.
func (f TelemetryFile) OpenWriter() (io.WriteCloser, error) {
	w := &bufferedFile{
		name: f.Filename,
		open: f.open,
		buf:  make([]byte, 0, f.BufferSize),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go w.flushEvery(time.Duration(f.FlushInterval))
	// A clean exit writes the buffer out once the servers have stopped:
	// Caddy does not close every log writer before the process ends.
	caddy.OnExit(func(context.Context) { _ = w.Sync() })
	return w, nil
}

// open creates the file's folder and opens the file for appending, or the
// rolling logger that does.
func (f TelemetryFile) open() (io.WriteCloser, error) {
	if err := os.MkdirAll(filepath.Dir(f.Filename), 0o700); err != nil {
		return nil, err
	}
	if !f.rolls() {
		return os.OpenFile(f.Filename, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	return &timberjack.Logger{
		Filename:    f.Filename,
		MaxSize:     f.RollSizeMB,
		MaxBackups:  f.RollKeep,
		MaxAge:      f.RollKeepDays,
		Compression: f.compression(),
		FileMode:    0o600,
	}, nil
}

// UnmarshalCaddyfile sets up the writer from Caddyfile tokens. Syntax:
//
//	output proveit_file <filename> {
//	    flush_interval    <duration>
//	    buffer_size       <bytes>
//	    roll_disabled
//	    roll_size         <size>
//	    roll_compression  none|gzip|zstd
//	    roll_uncompressed
//	    roll_keep         <num>
//	    roll_keep_for     <duration>
//	}
//
// The rolling subdirectives are those of Caddy's file writer: roll_size
// is rounded up to whole MiB, roll_keep_for up to whole days, and
// roll_uncompressed is roll_compression none, here the default.
func (f *TelemetryFile) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the writer's name
	if !d.NextArg() {
		return d.ArgErr()
	}
	f.Filename = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := map[string]bool{}
	for d.NextBlock(0) {
		name := d.Val()
		if seen[name] {
			return d.Errf("%s: already specified", name)
		}
		seen[name] = true
		switch name {
		case "roll_disabled", "roll_uncompressed":
			if d.NextArg() {
				return d.ArgErr()
			}
			if name == "roll_disabled" {
				off := false
				f.Roll = &off
			} else {
				f.RollCompression = "none"
			}
			continue
		}
		var value string
		if !d.AllArgs(&value) {
			return d.ArgErr()
		}
		switch name {
		case "flush_interval":
			interval, err := caddy.ParseDuration(value)
			if err != nil || interval <= 0 {
				return d.Errf("flush_interval: %q is not a positive duration", value)
			}
			f.FlushInterval = caddy.Duration(interval)
		case "buffer_size":
			size, err := strconv.Atoi(value)
			if err != nil || size <= 0 {
				return d.Errf("buffer_size: %q is not a positive number of bytes", value)
			}
			f.BufferSize = size
		case "roll_size":
			size, err := humanize.ParseBytes(value)
			if err != nil || size == 0 {
				return d.Errf("roll_size: %q is not a positive size", value)
			}
			f.RollSizeMB = int(math.Ceil(float64(size) / humanize.MiByte))
		case "roll_compression":
			if err := checkCompression(value); err != nil {
				return d.Err(err.Error())
			}
			f.RollCompression = value
		case "roll_keep":
			keep, err := strconv.Atoi(value)
			if err != nil || keep <= 0 {
				return d.Errf("roll_keep: %q is not a positive number of files", value)
			}
			f.RollKeep = keep
		case "roll_keep_for":
			keepFor, err := caddy.ParseDuration(value)
			if err != nil || keepFor <= 0 {
				return d.Errf("roll_keep_for: %q is not a positive duration", value)
			}
			f.RollKeepDays = int(math.Ceil(keepFor.Hours() / 24))
		default:
			return d.Errf("unrecognized subdirective %q", name)
		}
	}
	return nil
}

// bufferedFile is an open TelemetryFile. zap hands it one whole record a
// Write, from any goroutine.
type bufferedFile struct {
	mu   sync.Mutex
	name string
	open func() (io.WriteCloser, error)
	out  io.WriteCloser // nil until the first write-out
	// buf holds whole records not yet written out; its capacity is the
	// buffer's size. What a failed write-out left is retried with the next.
	buf []byte
	// failing is set while write-outs fail, so that a failure is reported
	// once, and its end once.
	failing bool
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

func (w *bufferedFile) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// A record that does not fit waits for a write-out of its own (or is
	// written directly when larger than the buffer): a write-out holds
	// whole records only, and a roll between two write-outs never splits one.
	if len(w.buf)+len(p) > cap(w.buf) {
		if err := w.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > cap(w.buf) {
			return w.writeOut(p)
		}
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// Sync writes out what the buffer holds; zap calls it after a record of
// level Panic or Fatal.
func (w *bufferedFile) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *bufferedFile) flushLocked() error {
	if len(w.buf) == 0 {
		return nil
	}
	n, err := w.writeOut(w.buf)
	w.buf = w.buf[:copy(w.buf, w.buf[n:])]
	return err
}

// writeOut writes p to the file, opening it first if need be, and reports
// to Caddy's log when writing starts or stops failing.
func (w *bufferedFile) writeOut(p []byte) (int, error) {
	var n int
	var err error
	if w.out == nil {
		w.out, err = w.open()
		if err != nil {
			w.out = nil
		}
	}
	if err == nil {
		n, err = w.out.Write(p)
	}
	if failing := err != nil; failing != w.failing {
		w.failing = failing
		// Not under w.mu: Caddy's own log could be routed to this writer.
		go reportWriteOut(w.name, err)
	}
	return n, err
}

func reportWriteOut(name string, err error) {
	journal := caddy.Log().Named(journalLogger)
	if err != nil {
		journal.Error("telemetry not written, retried at every write-out", zap.String("file", name), zap.Error(err))
		return
	}
	journal.Info("telemetry written again", zap.String("file", name))
}

func (w *bufferedFile) flushEvery(interval time.Duration) {
	defer close(w.done)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			_ = w.Sync() // a failed write-out is retried with the next
		case <-w.stop:
			return
		}
	}
}

// Close writes out the buffer and closes the file.
func (w *bufferedFile) Close() error {
	var err error
	w.once.Do(func() {
		close(w.stop)
		<-w.done
		w.mu.Lock()
		defer w.mu.Unlock()
		err = w.flushLocked()
		if w.out != nil {
			if cerr := w.out.Close(); err == nil {
				err = cerr
			}
		}
	})
	return err
}

// Interface guards
var (
	_ caddy.Provisioner     = (*TelemetryFile)(nil)
	_ caddy.Validator       = (*TelemetryFile)(nil)
	_ caddy.WriterOpener    = (*TelemetryFile)(nil)
	_ caddyfile.Unmarshaler = (*TelemetryFile)(nil)
)
