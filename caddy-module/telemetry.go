package corpushandler

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Outcomes name what a call was answered with, in telemetry.
const (
	outcomeResource    = "resource"
	outcomeAbsent      = "absent"
	outcomeForbidden   = "forbidden"
	outcomeMalformed   = "malformed"
	outcomeNotFound    = "not_found"
	outcomeUnavailable = "unavailable"
)

// log writes the telemetry record of one call on the module's own logger
// (http.handlers.proveit_corpus), which operators route with Caddy's log
// include. It is an internal instrument, never a source of any answer, and it
// never holds a secret: the slot that matched is logged, not the value.
func (h *Handler) log(r *http.Request, resp *response, slot int, start time.Time) {
	ce := h.telemetry.Check(zap.InfoLevel, "call")
	if ce == nil {
		return
	}
	// Cores encode fields before Write returns, so the array can be reused:
	// a call then costs no allocation.
	fields := fieldPool.Get().(*[telemetryFields]zap.Field)
	defer fieldPool.Put(fields)
	*fields = [telemetryFields]zap.Field{
		zap.String("remote", r.RemoteAddr),
		zap.String("proto", r.Proto),
		zap.String("method", r.Method),
		zap.String("target", h.redact(r.RequestURI)),
		zap.String("outcome", resp.outcome),
		zap.Int("status", resp.status),
		zap.String("resource", resp.resource),
		zap.Int("bytes", len(resp.body)),
		zap.String("sha256", resp.sha256),
		zap.Duration("duration", time.Since(start)),
		zap.Int("secret_slot", slot),
	}
	ce.Write(fields[:]...)
}

const telemetryFields = 11

var fieldPool = sync.Pool{New: func() any { return new([telemetryFields]zap.Field) }}

// redact removes any configured secret from text taken from a request, so
// that not even a caller who knew the secret could write it into the logs.
func (h *Handler) redact(text string) string {
	for _, secret := range h.secrets {
		if strings.Contains(text, secret) {
			text = strings.ReplaceAll(text, secret, "[secret]")
		}
	}
	return text
}
