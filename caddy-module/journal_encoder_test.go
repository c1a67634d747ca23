package corpushandler

import (
	"bytes"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

func TestJournalEncoderDropsOnlyTheFalseWarning(t *testing.T) {
	tests := []struct {
		logger, msg, address string
		kept                 bool
	}{
		{"admin", openInterfaceWarning, "unix//run/proveit/admin.sock|0600", false},
		{"admin", openInterfaceWarning, "unixpacket//run/a.sock", false},
		{"admin", openInterfaceWarning, "tcp/0.0.0.0:2019", true},
		{"admin", openInterfaceWarning, ":2019", true},
		{"admin", "admin endpoint started", "unix//run/proveit/admin.sock|0600", true},
		{"other", openInterfaceWarning, "unix//run/proveit/admin.sock", true},
	}
	for _, tt := range tests {
		t.Run(tt.logger+" "+tt.msg+" "+tt.address, func(t *testing.T) {
			var out bytes.Buffer
			enc := &JournalEncoder{Encoder: zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())}
			// With derives a logger, whose encoder is a clone: it filters too.
			logger := zap.New(zapcore.NewCore(enc, zapcore.AddSync(&out), zap.InfoLevel)).Named(tt.logger).With(zap.String("k", "v"))
			logger.Warn(tt.msg, zap.String("address", tt.address))
			if tt.kept {
				assert.Contains(t, out.String(), tt.msg)
			} else {
				assert.Empty(t, out.String())
			}
		})
	}
}

func TestJournalEncoderCaddyfile(t *testing.T) {
	var e JournalEncoder
	require.NoError(t, e.UnmarshalCaddyfile(caddyfile.NewTestDispenser("proveit_journal {\n wrap filter {\n wrap json\n }\n}")))
	assert.JSONEq(t, `{"format":"filter","wrap":{"format":"json"}}`, string(e.WrappedRaw))
	for input, message := range map[string]string{
		"proveit_journal {\n wrap\n}":                         "wrong argument count",
		"proveit_journal {\n other json\n}":                   `unrecognized subdirective "other"`,
		"proveit_journal {\n wrap json\n wrap json\n}":        "already specified",
		"proveit_journal extra":                               "wrong argument count",
		"proveit_journal {\n wrap proveit_journal_missing\n}": "proveit_journal_missing",
	} {
		assert.ErrorContains(t, new(JournalEncoder).UnmarshalCaddyfile(caddyfile.NewTestDispenser(input)), message, input)
	}
}
