package corpushandler

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
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

func TestTelemetryFileKeepsEveryRecordWhole(t *testing.T) {
	w, path := openTelemetryFile(t, TelemetryFile{BufferSize: 4096, FlushInterval: caddy.Duration(time.Hour)})
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	const writers, records = 8, 2000
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range records {
				// Some records larger than the buffer, which are written directly.
				pad := strings.Repeat("x", (i%97)*(1+i%3)*20)
				_, err := fmt.Fprintf(w, "{\"g\":%d,\"i\":%d,\"pad\":%q}\n", g, i, pad)
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, w.Close())
	require.NoError(t, w.Close(), "a second Close is harmless")

	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	next := make([]int, writers)
	scanner := bufio.NewScanner(file)
	scanner.Buffer(nil, 1<<20)
	lines := 0
	for scanner.Scan() {
		var g, i int
		_, err := fmt.Sscanf(scanner.Text(), "{\"g\":%d,\"i\":%d,", &g, &i)
		require.NoError(t, err, "a whole record: %.60s", scanner.Text())
		require.Equal(t, next[g], i, "writer %d's records in order", g)
		next[g]++
		lines++
	}
	require.NoError(t, scanner.Err())
	assert.Equal(t, writers*records, lines, "every record reached the file")
}

func TestTelemetryFileFlushesOnItsInterval(t *testing.T) {
	w, path := openTelemetryFile(t, TelemetryFile{FlushInterval: caddy.Duration(20 * time.Millisecond)})
	defer w.Close()
	_, err := w.Write([]byte("{\"call\":1}\n"))
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Empty(t, data, "held in the buffer at first")
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
		{input: "proveit_file /t.log {\n roll_size 1MiB\n}", err: `unrecognized subdirective "roll_size"`},
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
}
