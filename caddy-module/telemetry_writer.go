package corpushandler

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func init() {
	caddy.RegisterModule(TelemetryFile{})
}

// TelemetryFile is a log writer that appends records to a file through a
// buffer, written out at least every FlushInterval and when Caddy closes the
// writer. The telemetry writes one record a call: written one by one, each
// costs a system call, a good part of a call's time (docs/performance.md).
//
// Records reach the file in order, never interleaved. Nothing is lost
// on a reload, which keeps the writer open as long as a configuration uses
// the same file, nor on a clean exit, which writes the buffer out after the
// servers have stopped; a crash loses at most the last FlushInterval of
// records.
type TelemetryFile struct {
	// Filename is the file records are appended to, created with mode 0600
	// (and its folder with 0700) when missing.
	Filename string `json:"filename"`

	// FlushInterval bounds how long a record may wait in memory. Default: 100ms.
	FlushInterval caddy.Duration `json:"flush_interval,omitempty"`

	// BufferSize is the buffer's size in bytes; a larger record is written
	// directly. Default: 64 KiB.
	BufferSize int `json:"buffer_size,omitempty"`
}

// Defaults of a TelemetryFile.
const (
	defaultFlushInterval = 100 * time.Millisecond
	defaultBufferSize    = 64 << 10
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
	return nil
}

// Validate checks the configuration.
func (f *TelemetryFile) Validate() error {
	if f.Filename == "" {
		return fmt.Errorf("proveit_file: no filename")
	}
	return nil
}

func (f TelemetryFile) String() string { return "proveit_file:" + f.Filename }

// WriterKey identifies the file: configurations that name the same one
// share one open writer, which a reload therefore never closes.
func (f TelemetryFile) WriterKey() string { return "proveit_file:" + f.Filename }

// OpenWriter opens the file for appending and starts the periodic flush.
func (f TelemetryFile) OpenWriter() (io.WriteCloser, error) {
	if err := os.MkdirAll(filepath.Dir(f.Filename), 0o700); err != nil {
		return nil, err
	}
	file, err := os.OpenFile(f.Filename, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	w := &bufferedFile{file: file, buf: bufio.NewWriterSize(file, f.BufferSize), stop: make(chan struct{}), done: make(chan struct{})}
	go w.flushEvery(time.Duration(f.FlushInterval))
	// A clean exit writes the buffer out once the servers have stopped:
	// Caddy does not close every log writer before the process ends.
	caddy.OnExit(func(context.Context) { _ = w.Sync() })
	return w, nil
}

// UnmarshalCaddyfile sets up the writer from Caddyfile tokens. Syntax:
//
//	output proveit_file <filename> {
//	    flush_interval <duration>
//	    buffer_size    <bytes>
//	}
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
			var size int
			if _, err := fmt.Sscan(value, &size); err != nil || size <= 0 {
				return d.Errf("buffer_size: %q is not a positive number of bytes", value)
			}
			f.BufferSize = size
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
	file *os.File
	buf  *bufio.Writer
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func (w *bufferedFile) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// Sync writes out what the buffer holds; zap calls it after a record of
// level Panic or Fatal.
func (w *bufferedFile) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Flush()
}

func (w *bufferedFile) flushEvery(interval time.Duration) {
	defer close(w.done)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			_ = w.Sync() // a failed write is retried with the next flush
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
		err = w.Sync()
		if cerr := w.file.Close(); err == nil {
			err = cerr
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
