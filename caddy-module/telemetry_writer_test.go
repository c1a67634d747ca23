package corpushandler

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openTelemetryFile(t *testing.T, f TelemetryFile) (*bufferedFile, string) {
	t.Helper()
	f.Filename = filepath.Join(t.TempDir(), "logs", "telemetry.log")
	require.NoError(t, f.Provision(caddy.Context{}))
	require.NoError(t, f.Validate())
	w, err := f.OpenWriter()
	require.NoError(t, err)
	return w.(*bufferedFile), f.Filename
}

var rollOff = false

// writeRecords writes records records from each of writers goroutines, some
// larger than a 4 KiB buffer, each naming its writer and its rank.
func writeRecords(t *testing.T, w *bufferedFile, writers, records int) {
	t.Helper()
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range records {
				pad := strings.Repeat("x", (i%97)*(1+i%3)*20)
				_, err := fmt.Fprintf(w, "{\"g\":%d,\"i\":%d,\"pad\":%q}\n", g, i, pad)
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
}

// readRecords reads every record of a file, plain or compressed, and
// requires each to be whole and each writer's to follow its order.
func readRecords(t *testing.T, path string, seen map[[2]int]int) {
	t.Helper()
	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	var r io.Reader = file
	switch filepath.Ext(path) {
	case ".gz":
		gz, err := gzip.NewReader(file)
		require.NoError(t, err)
		r = gz
	case ".zst":
		zst, err := zstd.NewReader(file)
		require.NoError(t, err)
		defer zst.Close()
		r = zst
	}
	last := map[int]int{}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(nil, 1<<20)
	for scanner.Scan() {
		var record struct{ G, I int }
		require.NoError(t, json.Unmarshal(scanner.Bytes(), &record), "a whole record in %s: %.60s", filepath.Base(path), scanner.Text())
		if prev, ok := last[record.G]; ok {
			require.Greater(t, record.I, prev, "writer %d's records in order in %s", record.G, filepath.Base(path))
		}
		last[record.G] = record.I
		seen[[2]int{record.G, record.I}]++
	}
	require.NoError(t, scanner.Err())
}

func TestTelemetryFileKeepsEveryRecordWhole(t *testing.T) {
	for _, tt := range []struct {
		name string
		roll *bool
	}{{"rolling", nil}, {"roll_disabled", &rollOff}} {
		t.Run(tt.name, func(t *testing.T) {
			w, path := openTelemetryFile(t, TelemetryFile{BufferSize: 4096, FlushInterval: caddy.Duration(time.Hour), Roll: tt.roll})
			const writers, records = 8, 2000
			writeRecords(t, w, writers, records)
			require.NoError(t, w.Close())
			require.NoError(t, w.Close(), "a second Close is harmless")

			info, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
			dir, err := os.Stat(filepath.Dir(path))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o700), dir.Mode().Perm())
			seen := map[[2]int]int{}
			readRecords(t, path, seen)
			assert.Len(t, seen, writers*records, "every record reached the file")
		})
	}
}

// TestTelemetryFileRollLosesNoRecord rolls the file several times under
// concurrent writers, its rolled files plain (the default) or compressed:
// every record is in exactly one file, whole.
func TestTelemetryFileRollLosesNoRecord(t *testing.T) {
	for _, tt := range []struct{ name, compression, suffix string }{{"plain by default", "", ".log"}, {"gzip", "gzip", ".gz"}, {"zstd", "zstd", ".zst"}} {
		t.Run(tt.name, func(t *testing.T) {
			const keep = 100 // none deleted
			w, path := openTelemetryFile(t, TelemetryFile{BufferSize: 4096, FlushInterval: caddy.Duration(time.Millisecond), RollSizeMB: 1, RollKeep: keep, RollCompression: tt.compression})
			const writers, records = 4, 800 // about 6 MiB: five rolls or more
			writeRecords(t, w, writers, records)
			require.NoError(t, w.Close())

			var files []string
			// Compression runs behind the writer: wait until every rolled
			// file is compressed, the current one alone plain.
			require.Eventually(t, func() bool {
				var err error
				files, err = filepath.Glob(filepath.Join(filepath.Dir(path), "telemetry*"))
				require.NoError(t, err)
				ofSuffix := 0
				for _, f := range files {
					if strings.HasSuffix(f, tt.suffix) {
						ofSuffix++
					}
				}
				return len(files) >= 6 && (ofSuffix == len(files)-1 || tt.compression == "" && ofSuffix == len(files))
			}, 10*time.Second, 20*time.Millisecond, "the file was rolled, and each rolled file is %s", tt.suffix)
			seen := map[[2]int]int{}
			for _, f := range files {
				info, err := os.Stat(f)
				require.NoError(t, err)
				assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), f)
				readRecords(t, f, seen)
			}
			for g := range writers {
				for i := range records {
					require.Equal(t, 1, seen[[2]int{g, i}], "record %d of writer %d in exactly one file", i, g)
				}
			}
		})
	}
}

// TestTelemetryFileWritesNothingUntilARecord: opening and closing the
// writer, as `caddy validate` does, creates neither the file nor its folder.
func TestTelemetryFileWritesNothingUntilARecord(t *testing.T) {
	w, path := openTelemetryFile(t, TelemetryFile{})
	require.NoError(t, w.Sync())
	require.NoError(t, w.Close())
	_, err := os.Stat(filepath.Dir(path))
	assert.True(t, os.IsNotExist(err), "the folder was created: %v", err)
}

// TestTelemetryFileRetriesAFailedWriteOut: while the folder cannot be
// created the records wait in the buffer; the next write-out after that
// writes them.
func TestTelemetryFileRetriesAFailedWriteOut(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "logs")
	require.NoError(t, os.WriteFile(blocker, nil, 0o600)) // a file where the folder goes
	f := TelemetryFile{Filename: filepath.Join(blocker, "telemetry.log"), FlushInterval: caddy.Duration(time.Hour)}
	require.NoError(t, f.Provision(caddy.Context{}))
	opened, err := f.OpenWriter()
	require.NoError(t, err)
	w := opened.(*bufferedFile)
	defer w.Close()
	_, err = w.Write([]byte("{\"call\":1}\n"))
	require.NoError(t, err)
	require.Error(t, w.Sync(), "the folder cannot be made")
	require.NoError(t, os.Remove(blocker))
	require.NoError(t, w.Sync())
	data, err := os.ReadFile(f.Filename)
	require.NoError(t, err)
	assert.Equal(t, "{\"call\":1}\n", string(data))
}

func TestTelemetryFileFlushesOnItsInterval(t *testing.T) {
	w, path := openTelemetryFile(t, TelemetryFile{FlushInterval: caddy.Duration(20 * time.Millisecond)})
	defer w.Close()
	_, err := w.Write([]byte("{\"call\":1}\n"))
	require.NoError(t, err)
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err), "held in the buffer at first")
	assert.Eventually(t, func() bool {
		data, _ := os.ReadFile(path)
		return string(data) == "{\"call\":1}\n"
	}, 5*time.Second, 10*time.Millisecond, "written out within the interval")
}

func TestTelemetryFileCaddyfile(t *testing.T) {
	tests := []struct {
		input string
		want  TelemetryFile
		err   string
	}{
		{input: "proveit_file /var/log/t.log", want: TelemetryFile{Filename: "/var/log/t.log"}},
		{input: "proveit_file /t.log {\n flush_interval 250ms\n buffer_size 8192\n}", want: TelemetryFile{Filename: "/t.log", FlushInterval: caddy.Duration(250 * time.Millisecond), BufferSize: 8192}},
		{input: "proveit_file", err: "wrong argument count"},
		{input: "proveit_file /a /b", err: "wrong argument count"},
		{input: "proveit_file /t.log {\n flush_interval 0s\n}", err: "not a positive duration"},
		{input: "proveit_file /t.log {\n buffer_size -1\n}", err: "not a positive number"},
		{input: "proveit_file /t.log {\n flush_interval 1s\n flush_interval 2s\n}", err: "flush_interval: already specified"},
		{input: "proveit_file /t.log {\n roll_size 1MiB\n roll_keep 5\n roll_keep_for 36h\n}", want: TelemetryFile{Filename: "/t.log", RollSizeMB: 1, RollKeep: 5, RollKeepDays: 2}},
		{input: "proveit_file /t.log {\n roll_size 1.5MiB\n}", want: TelemetryFile{Filename: "/t.log", RollSizeMB: 2}},
		{input: "proveit_file /t.log {\n roll_disabled\n roll_uncompressed\n}", want: TelemetryFile{Filename: "/t.log", Roll: &rollOff, RollCompression: "none"}},
		{input: "proveit_file /t.log {\n roll_compression zstd\n}", want: TelemetryFile{Filename: "/t.log", RollCompression: "zstd"}},
		{input: "proveit_file /t.log {\n roll_compression gzip\n}", want: TelemetryFile{Filename: "/t.log", RollCompression: "gzip"}},
		{input: "proveit_file /t.log {\n roll_compression brotli\n}", err: `roll_compression: "brotli" is none of none, gzip, zstd`},
		{input: "proveit_file /t.log {\n roll_size many\n}", err: "not a positive size"},
		{input: "proveit_file /t.log {\n roll_keep 0\n}", err: "not a positive number of files"},
		{input: "proveit_file /t.log {\n roll_keep_for -1h\n}", err: "not a positive duration"},
		{input: "proveit_file /t.log {\n roll_disabled yes\n}", err: "wrong argument count"},
		{input: "proveit_file /t.log {\n roll_interval 1h\n}", err: `unrecognized subdirective "roll_interval"`},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			var f TelemetryFile
			err := f.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, f)
		})
	}
	assert.Error(t, (&TelemetryFile{}).Validate(), "a file is required")
	assert.ErrorContains(t, (&TelemetryFile{Filename: "/t.log", BufferSize: 2 << 20, RollSizeMB: 1}).Validate(), "exceeds roll_size")
	assert.ErrorContains(t, (&TelemetryFile{Filename: "/t.log", RollCompression: "lz4"}).Validate(), `proveit_file: roll_compression: "lz4" is none of none, gzip, zstd`)
}
