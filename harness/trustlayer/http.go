package trustlayer

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proxycall"
)

// maxBody bounds what the stand-in reads of a request or an upstream answer.
const maxBody = 16 << 20

// Handler serves Trust Layer's endpoints:
//
//	POST /v1/proxy             relay a GET, issue its proof
//	GET  /v1/proof/{id}        the public view (counts a view)
//	POST /v1/proofs            {"proof_ids": [1..50 ids]} → {"proofs": {id: view|null}}
//	GET  /v1/proof/{id}/full   the owner's view, with the API key that paid
//	GET  /v1/proof/{id}/tsr    the TimeStampResp, DER
//	GET  /v1/pubkey            the keys
//
// and the key calls of keys.go: POST /v1/keys/free-signup,
// POST /v1/keys/bind-did and /confirm, GET /v1/keys/identity.
func (tl *TrustLayer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/proxy", tl.serveProxy)
	mux.HandleFunc("GET /v1/proof/{id}", tl.serveView)
	mux.HandleFunc("POST /v1/proofs", tl.serveBatchViews)
	mux.HandleFunc("GET /v1/proof/{id}/full", tl.serveFull)
	mux.HandleFunc("GET /v1/proof/{id}/tsr", tl.serveTSR)
	mux.HandleFunc("GET /v1/pubkey", tl.servePubkey)
	mux.HandleFunc("POST /v1/keys/free-signup", tl.serveFreeSignup)
	mux.HandleFunc("POST /v1/keys/bind-did", tl.serveBindDID)
	mux.HandleFunc("POST /v1/keys/bind-did/confirm", tl.serveBindDIDConfirm)
	mux.HandleFunc("GET /v1/keys/identity", tl.serveIdentity)
	return mux
}

// RekorHandler serves the log's endpoints:
//
//	GET /api/v1/log/entries/{uuid}   {uuid: entry, inclusion proof, SET}
//	GET /api/v1/log/publicKey        the log key, PEM
func (tl *TrustLayer) RekorHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/log/entries/{uuid}", func(w http.ResponseWriter, r *http.Request) {
		data, err := tl.RekorEntry(r.PathValue("uuid"))
		if err != nil {
			writeJSON(w, http.StatusNotFound, map[string]any{"code": http.StatusNotFound, "message": "entry not found"})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
	})
	mux.HandleFunc("GET /api/v1/log/publicKey", func(w http.ResponseWriter, r *http.Request) {
		text, _ := publicPEM(&tl.log.key.PublicKey)
		w.Header().Set("Content-Type", "application/x-pem-file")
		io.WriteString(w, text)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func writeError(w http.ResponseWriter, e *Error) {
	writeJSON(w, e.Status, map[string]any{"error": e})
}

func apiKey(r *http.Request) string {
	if k := r.Header.Get(APIKeyHeader); k != "" {
		return k
	}
	if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(auth)
	}
	return ""
}

var links = map[string]string{"pricing": "https://arkforge.tech/en/pricing.html?utm_source=proxy_api&utm_medium=json_response#trust"}

func badRequest(message string) *Error {
	return &Error{Code: "invalid_request", Message: message, Status: http.StatusBadRequest}
}

// proxyRequest reads POST /v1/proxy's body into a call.
func proxyRequest(r *http.Request) (*Call, *Error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return nil, badRequest(err.Error())
	}
	doc, err := pyjson.Parse(data)
	if err != nil {
		return nil, badRequest("the body is not JSON: " + err.Error())
	}
	obj, ok := doc.(pyjson.Object)
	if !ok {
		return nil, badRequest("the body is not a JSON object")
	}
	call := &Call{APIKey: apiKey(r), AgentIdentity: r.Header.Get(AgentIdentityHeader)}
	str := func(key string, dst *string) bool {
		v, present := obj.Get(key)
		if !present {
			return true
		}
		s, ok := v.(string)
		*dst = s
		return ok
	}
	if !str("target", &call.Target) || call.Target == "" || !str("method", &call.Method) || !str("currency", &call.Currency) {
		return nil, badRequest("target, method and currency are strings, target required")
	}
	if v, present := obj.Get("payload"); present {
		p, ok := v.(pyjson.Object)
		if !ok {
			return nil, badRequest("payload is an object")
		}
		call.Payload = p
	}
	if v, present := obj.Get("amount"); present {
		if _, ok := v.(pyjson.Number); !ok {
			return nil, badRequest("amount is a number")
		}
	}
	return call, nil
}

// upstreamURL is where a call's GET really goes, with its params.
func (tl *TrustLayer) upstreamURL(call *Call) (string, Upstream, *Error) {
	u, err := url.Parse(call.Target)
	if err != nil {
		return "", Upstream{}, &Error{Code: "invalid_target", Message: err.Error(), Status: http.StatusBadRequest}
	}
	up, ok := tl.opts.Upstreams[u.Scheme+"://"+u.Host]
	if !ok {
		return "", Upstream{}, &Error{Code: "invalid_target", Message: "the stand-in relays to its configured upstreams only", Status: http.StatusBadRequest}
	}
	query := u.RawQuery
	// httpx's params: in the payload's order, each value as str() writes it.
	for _, m := range call.Payload {
		var text string
		switch v := m.Value.(type) {
		case string:
			text = v
		case pyjson.Number:
			text = string(v)
		default:
			return "", Upstream{}, badRequest("the stand-in takes string or number params only")
		}
		if query != "" {
			query += "&"
		}
		query += url.QueryEscape(m.Key) + "=" + url.QueryEscape(text)
	}
	target := strings.TrimSuffix(up.URL, "/") + u.EscapedPath()
	if query != "" {
		target += "?" + query
	}
	return target, up, nil
}

func (tl *TrustLayer) serveProxy(w http.ResponseWriter, r *http.Request) {
	call, e := proxyRequest(r)
	if e != nil {
		writeError(w, e)
		return
	}
	// A key bound to a DID speaks as that DID, whatever the header says
	// (Trust Layer's verified_did overrides the declared identity).
	if did, bound := tl.boundDID(call.APIKey); bound {
		call.AgentIdentity = did
	}
	if err := call.normalise(); err != nil {
		writeError(w, err.(*Error))
		return
	}
	if call.Method != http.MethodGet {
		writeError(w, badRequest("the stand-in relays GET only"))
		return
	}
	target, up, e := tl.upstreamURL(call)
	if e != nil {
		writeError(w, e)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, target, nil)
	if err != nil {
		writeError(w, badRequest(err.Error()))
		return
	}
	if up.Secret != "" {
		req.Header.Set(corpus.SecretHeader, up.Secret)
	}
	resp, err := tl.client.Do(req)
	if err == nil {
		call.Body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		call.StatusCode = resp.StatusCode
		call.UpstreamDate = resp.Header.Get("Date")
	}
	if err != nil {
		call.StatusCode, call.Body, call.UpstreamDate = 0, nil, ""
		call.ServiceError = "service_error"
		var timeout interface{ Timeout() bool }
		if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &timeout) && timeout.Timeout() {
			call.ServiceError = "proxy_timeout"
		}
	}
	rec, err := tl.issue(call)
	if err != nil {
		var te *Error
		if errors.As(err, &te) {
			writeError(w, te)
		} else {
			writeError(w, &Error{Code: "internal", Message: err.Error(), Status: http.StatusInternalServerError})
		}
		return
	}
	proof := rec.proxyRecord(tl.opts.BaseURL)
	switch call.ServiceError {
	case "proxy_timeout":
		writeJSON(w, http.StatusGatewayTimeout, map[string]any{"error": &Error{Code: "proxy_timeout", Message: "Target service timed out", Status: http.StatusGatewayTimeout}, "proof": proof, "_links": links})
		return
	case "service_error":
		writeJSON(w, http.StatusBadGateway, map[string]any{"error": &Error{Code: "service_error", Message: "Target service is unreachable", Status: http.StatusBadGateway}, "proof": proof, "_links": links})
		return
	}
	_, parsed := ResponseData(call.Body, call.StatusCode, "")
	// Trust Layer stamps a successful JSON object after hashing it: the
	// body relayed is not the body anchored.
	if obj, ok := parsed.(pyjson.Object); ok && rec.success {
		if _, raw := obj.Get("_raw_text"); !raw {
			parsed = append(obj[:len(obj):len(obj)], pyjson.Member{Key: AttestationKey, Value: pyjson.Object{
				{Key: "id", Value: string(rec.id)},
				{Key: "seal", Value: tl.opts.BaseURL + "/v1/proof/" + string(rec.id)},
				{Key: "status", Value: "VERIFIED_TRANSACTION"},
				{Key: "msg", Value: "Payment confirmed, execution anchored."},
			}})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"proof":            proof,
		"service_response": map[string]any{"status_code": call.StatusCode, "body": json.RawMessage(pyjson.Canonical(parsed))},
		"_links":           links,
	})
}

// AttestationKey is the member Trust Layer adds to a successful JSON
// object it relays, after hashing it (tools/proxycall removes it).
const AttestationKey = proxycall.AttestationKey

func notFound(w http.ResponseWriter) {
	writeError(w, &Error{Code: "not_found", Message: "Proof not found", Status: http.StatusNotFound})
}

func (tl *TrustLayer) serveView(w http.ResponseWriter, r *http.Request) {
	tl.mu.Lock()
	rec, ok := tl.proofs[ProofID(r.PathValue("id"))]
	var v View
	if ok {
		rec.views++
		v = rec.view()
	}
	tl.mu.Unlock()
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (tl *TrustLayer) serveFull(w http.ResponseWriter, r *http.Request) {
	key := apiKey(r)
	tl.mu.Lock()
	rec, ok := tl.proofs[ProofID(r.PathValue("id"))]
	var f Full
	if ok {
		f = rec.full()
	}
	tl.mu.Unlock()
	switch {
	case !ok:
		notFound(w)
	case key == "":
		writeError(w, &Error{Code: "invalid_api_key", Message: "API key required", Status: http.StatusUnauthorized})
	case anchor.SHA256([]byte(key)) != f.Parties.BuyerFingerprint:
		writeError(w, &Error{Code: "forbidden", Message: "This proof belongs to another API key", Status: http.StatusForbidden})
	default:
		writeJSON(w, http.StatusOK, f)
	}
}

func (tl *TrustLayer) serveTSR(w http.ResponseWriter, r *http.Request) {
	tsr, err := tl.TSR(ProofID(r.PathValue("id")))
	if err != nil {
		notFound(w)
		return
	}
	w.Header().Set("Content-Type", "application/timestamp-reply")
	w.Write(tsr)
}

func (tl *TrustLayer) serveBatchViews(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, badRequest(err.Error()))
		return
	}
	doc, err := pyjson.Parse(data)
	obj, _ := doc.(pyjson.Object)
	v, _ := obj.Get("proof_ids")
	ids, isList := v.(pyjson.Array)
	if err != nil || !isList || len(ids) == 0 {
		writeError(w, badRequest(`the body is {"proof_ids": [1 to 50 ids]}`))
		return
	}
	if len(ids) > MaxBatchQuery {
		writeError(w, badRequest("at most 50 proof ids at once"))
		return
	}
	answer := map[string]*View{}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, raw := range ids {
		id, ok := raw.(string)
		if !ok {
			writeError(w, badRequest("proof ids are strings"))
			return
		}
		answer[id] = nil
		rec, ok := tl.proofs[ProofID(id)]
		if ok && tl.batchSeller(rec.parties.Seller) {
			v := rec.view()
			answer[id] = &v
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"proofs": answer})
}

func (tl *TrustLayer) batchSeller(seller string) bool {
	for _, s := range tl.opts.BatchSellers {
		if s == seller {
			return true
		}
	}
	return false
}

func (tl *TrustLayer) servePubkey(w http.ResponseWriter, r *http.Request) {
	p := tl.Published()
	tl.mu.Lock()
	signer, submitter := tl.keys[tl.signer], tl.rekorKeys[tl.submitter]
	tl.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"pubkey": ed25519Text(signer.priv.Public().(ed25519.PublicKey)), "algorithm": "Ed25519", "kid": signer.spec.Kid,
		"rekor_pubkey": submitter.pem, "rekor_algorithm": "ECDSA-P256-SHA256", "rekor_kid": submitter.spec.Kid,
		"keys": p.Keys, "rekor_keys": p.RekorKeys,
	})
}
