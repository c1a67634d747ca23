package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
)

// runHash prints, for one path or URL, what a scorer replaying a claim needs:
// the request_hash of a GET of that exact target, and the status, bytes hash
// and response_hash of the body the corpus answers it with.
func runHash(args []string, stdout io.Writer) error {
	fs := newFlagSet("hash")
	manifestPath := fs.String("manifest", "", "manifest file (default: the manifest/<track>.json of the path's track)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one path (/agrements/AGR-4417) or URL")
	}
	target, rawTarget := fs.Arg(0), fs.Arg(0)
	origin := ""
	if !strings.HasPrefix(target, "/") {
		// A URL: its origin is everything before the path.
		scheme := strings.Index(target, "://")
		slash := strings.IndexByte(target[scheme+3:], '/')
		if scheme < 0 || slash < 0 {
			return fmt.Errorf("%q is neither a path nor a URL", target)
		}
		origin, rawTarget = target[:scheme+3+slash], target[scheme+3+slash:]
	}
	m, _, err := manifest.ReadFile(manifestFor(*manifestPath, rawTarget))
	if err != nil {
		return err
	}
	switch origin {
	case "":
		target = m.Target(rawTarget)
	case m.Origin:
	default:
		return fmt.Errorf("%q is neither a path nor a URL at the manifest's origin %s", target, m.Origin)
	}
	entry, err := answerFor(m, rawTarget)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "target        %s\n", target)
	fmt.Fprintf(stdout, "request_hash  %s\n", manifest.RequestHash(target))
	fmt.Fprintf(stdout, "answer        %s %s (%d)\n", entry.Kind, entry.Path, entry.Status)
	fmt.Fprintf(stdout, "bytes_sha256  %s\n", entry.BytesSHA256)
	fmt.Fprintf(stdout, "response_hash %s\n", entry.ResponseHash)
	return nil
}

// manifestFor is the manifest that answers a raw target: the one given, or
// the checked-in manifest of the track the path belongs to. A path of no
// track is answered with a fixed body, which every manifest lists.
func manifestFor(given, rawTarget string) string {
	if given != "" {
		return given
	}
	track := corpus.Tracks[0]
	if t, ok := corpus.TrackOf(rawTarget); ok {
		track = t
	}
	return filepath.Join("manifest", manifest.FileName(track))
}

// answerFor returns the manifest entry of the body the server answers a
// raw target with, past the gate.
func answerFor(m *manifest.Manifest, rawTarget string) (manifest.Entry, error) {
	isListed := func(path string) bool {
		e, ok := m.Lookup(path)
		return ok && e.Kind == manifest.Document
	}
	outcome, path := corpus.Classify(rawTarget, isListed)
	var system string
	switch outcome {
	case corpus.Resource:
		e, _ := m.Lookup(path)
		return e, nil
	case corpus.AbsentReference:
		if e, ok := m.Lookup(path); ok {
			return e, nil
		}
		body := corpus.AbsentBody(path)
		responseHash, err := manifest.ResponseHash(body)
		return manifest.Entry{Path: path, Kind: manifest.Absent, Status: 200, BytesSHA256: manifest.SHA256(body), ResponseHash: responseHash}, err
	case corpus.NotFound:
		system = corpus.SystemNotFound
	default:
		system = corpus.SystemBadRequest
	}
	e, ok := m.Lookup(system)
	if !ok {
		return e, fmt.Errorf("manifest has no entry for %s", system)
	}
	return e, nil
}
