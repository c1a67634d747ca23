package corpushandler

import (
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
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
// include. It is an internal instrument, never a source of any answer.
//
// It never holds a secret, wherever a caller put one, and nothing in it is
// computed from a secret: every field is either fixed by the server (outcome,
// status, a canonical path of the manifest, a known method) or a hash of what
// the caller sent. The request-target is written as text only when it is a
// path the manifest lists; any other target, the one place a caller can put
// free text, is written as its SHA-256, which names it without revealing it.
func (h *Handler) log(r *http.Request, resp *response, slot int, took time.Duration) {
	ce := h.telemetry.Check(zap.InfoLevel, "call")
	if ce == nil {
		return
	}
	target := zap.Skip()
	if resp.resource == "" {
		target = zap.String("target_sha256", anchor.SHA256([]byte(r.RequestURI)))
	}
	// Cores encode fields before Write returns, so the array can be reused:
	// a call then costs no allocation.
	fields := fieldPool.Get().(*[telemetryFields]zap.Field)
	defer fieldPool.Put(fields)
	*fields = [telemetryFields]zap.Field{
		zap.String("remote", r.RemoteAddr),
		zap.String("proto", knownProto(r.Proto)),
		zap.String("method", knownMethod(r.Method)),
		zap.String("outcome", resp.outcome),
		zap.Int("status", resp.status),
		zap.String("resource", resp.resource),
		target,
		zap.Int("bytes", len(resp.body)),
		zap.String("sha256", resp.sha256),
		zap.Duration("duration", took),
		zap.Int("secret_slot", slot),
	}
	ce.Write(fields[:]...)
}

const telemetryFields = 11

var fieldPool = sync.Pool{New: func() any { return new([telemetryFields]zap.Field) }}

// knownMethod returns the method when it is one net/http names, and "other"
// for any other token a caller sends.
func knownMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "other"
}

// knownProto returns the protocol version as a constant: net/http parses it
// from the request, so only its known values are written.
func knownProto(proto string) string {
	switch proto {
	case "HTTP/1.0", "HTTP/1.1", "HTTP/2.0", "HTTP/3.0":
		return proto
	}
	return "other"
}

// journalLogger names the handler's records in Caddy's own log (the
// journal under systemd). The telemetry's logger, the module's, is kept out
// of that log by the shipped Caddyfile: a record a call is not for the
// journal.
const journalLogger = "proveit_corpus"

// startupRecords name what a configuration serves: each corpus with its
// manifest's SHA-256 and whether it is pinned, then the totals. The
// journal gets them when the configuration is provisioned; the telemetry
// gets them just before the first call it records, so that each run of
// records opens on the manifests that answered it, and so that validating a
// configuration (`caddy validate`), which provisions it but serves nothing,
// writes no telemetry.
type startupRecords struct {
	telemetry *zap.Logger
	corpora   [][]zap.Field
	served    []zap.Field
	once      sync.Once
}

const (
	msgCorpusVerified = "corpus verified against its manifest"
	msgCorporaServed  = "corpora served"
)

func (s *startupRecords) write(logger *zap.Logger) {
	for _, fields := range s.corpora {
		logger.Info(msgCorpusVerified, fields...)
	}
	logger.Info(msgCorporaServed, s.served...)
}

func (s *startupRecords) writeTelemetry() { s.write(s.telemetry) }
