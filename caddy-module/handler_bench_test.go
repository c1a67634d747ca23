package corpushandler

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/arkforge/proveit-corpus/corpus"
)

// discardWriter is a ResponseWriter that keeps nothing, so that the benchmark
// measures the handler alone.
type discardWriter struct{ header http.Header }

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}

func benchmarkServe(b *testing.B, target string, secret string) {
	h, _ := newHandler(&testing.T{}, nil)
	// Telemetry as the shipped Caddyfile encodes it (JSON, time and
	// duration in integer nanoseconds), written nowhere.
	encoding := zap.NewProductionEncoderConfig()
	encoding.EncodeTime, encoding.EncodeDuration = zapcore.EpochNanosTimeEncoder, zapcore.NanosDurationEncoder
	h.telemetry = zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(encoding), zapcore.AddSync(io.Discard), zap.InfoLevel))
	r := httptest.NewRequest(http.MethodGet, "http://localhost/", nil)
	r.RequestURI = target
	if secret != "" {
		r.Header.Set(corpus.SecretHeader, secret)
	}
	w := &discardWriter{header: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = h.ServeHTTP(w, r, nil)
	}
}

func BenchmarkServeResource(b *testing.B)  { benchmarkServe(b, "/agrements/AGR-4417", secretB) }
func BenchmarkServeAbsent(b *testing.B)    { benchmarkServe(b, "/agrements/AGR-9999", secretA) }
func BenchmarkServeForbidden(b *testing.B) { benchmarkServe(b, "/agrements/AGR-4417", "") }
func BenchmarkServeMalformed(b *testing.B) { benchmarkServe(b, "/agrements/AGR-4417?x", secretA) }
