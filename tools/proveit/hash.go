package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

// runHash prints, for one path or URL, what a scorer replaying a claim needs:
// the request_hash of a GET of that exact target, and the status, bytes hash
// and response_hash of the body the corpus answers it with.
func runHash(args []string, stdout io.Writer) error {
	fs := newFlagSet("hash")
	fs.args = "PATH|URL"
	var trackName string
	registerTrack(fs, &trackName, "the track the path belongs to")
	manifestPath := fs.String("manifest", "", "manifest file (default: manifest/<track>.json of -track, else of the path's track; outside a checkout, the one compiled in)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tracks, err := tracksNamed(trackName)
	if err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		return badUsage(fmt.Errorf("want one path (/agrements/AGR-4417) or URL"))
	case 1:
	default:
		return badUsage(fmt.Errorf("unexpected argument %q: want one path or URL", fs.Arg(1)))
	}
	target, rawTarget := fs.Arg(0), fs.Arg(0)
	origin := ""
	if !strings.HasPrefix(target, "/") {
		// A URL: its origin is everything before the path.
		scheme := strings.Index(target, "://")
		slash := strings.IndexByte(target[scheme+3:], '/')
		if scheme < 0 || slash < 0 {
			return badInput(fmt.Errorf("%q is neither a path nor a URL", target))
		}
		origin, rawTarget = target[:scheme+3+slash], target[scheme+3+slash:]
	}
	owner, where := ownerOf(rawTarget)
	track := chooseTrack(owner, tracks)
	m, file, err := hashManifest(*manifestPath, track)
	if err != nil {
		return badInput(err)
	}
	// A path of one track looked up in the other's manifest would be
	// answered as an absent reference: the wrong answer, with its hashes.
	if owner != nil {
		switch {
		case owner != track:
			return badInput(fmt.Errorf("%s is %s, not of -track %s", rawTarget, where, track.Name))
		case m.Track != owner.Name:
			return badInput(fmt.Errorf("%s is %s, and %s is the manifest of the track %s: give the %s manifest", rawTarget, where, file, m.Track, owner.Name))
		}
	}
	if trackName != "" && m.Track != track.Name {
		return badInput(fmt.Errorf("%s /piste: the manifest is of the track %q, -track names %q", file, m.Track, track.Name))
	}
	switch origin {
	case "":
		target = m.Target(rawTarget)
	case m.Origin:
	default:
		return badInput(fmt.Errorf("%q is neither a path nor a URL at the manifest's origin %s", target, m.Origin))
	}
	entry, err := answerFor(m, rawTarget)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "target        %s\n", target)
	fmt.Fprintf(stdout, "request_hash  %s\n", anchor.RequestHash(target))
	fmt.Fprintf(stdout, "answer        %s %s (%d)\n", entry.Kind, entry.Path, entry.Status)
	fmt.Fprintf(stdout, "bytes_sha256  %s\n", entry.BytesSHA256)
	fmt.Fprintf(stdout, "response_hash %s\n", entry.ResponseHash)
	return nil
}

// chooseTrack is the track whose manifest answers a raw target: -track's, or
// the track the path belongs to (owner). A path of no track is answered with a fixed
// body, which every manifest lists.
func chooseTrack(owner *corpus.Track, named []*corpus.Track) *corpus.Track {
	switch {
	case len(named) == 1:
		return named[0]
	case owner != nil:
		return owner
	}
	return corpus.Tracks[0]
}

// ownerOf returns the track a raw target's path belongs to, nil for none,
// and how messages place the path in it.
func ownerOf(rawTarget string) (*corpus.Track, string) {
	if ref, ok := corpus.ParseReference(rawTarget); ok {
		return ref.Track(), fmt.Sprintf("in the collection %s of the track %s", ref.Collection(), ref.Track().Name)
	}
	if t, ok := corpus.TrackOf(rawTarget); ok {
		return t, "a path of the track " + t.Name
	}
	return nil, ""
}

// answerFor returns the manifest entry of the body the server answers a
// raw target with, past the gate.
func answerFor(m *manifest.Manifest, rawTarget string) (manifest.Entry, error) {
	isListed := func(path string) bool {
		e, ok := m.Lookup(path)
		return ok && e.Kind == manifest.Document
	}
	outcome, path, _ := corpus.Classify(rawTarget, isListed)
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
		responseHash, err := anchor.ResponseHash(body)
		return manifest.Entry{Path: path, Kind: manifest.Absent, Status: 200, BytesSHA256: anchor.SHA256(body), ResponseHash: responseHash}, err
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

// hashManifest reads the manifest hash looks the path up in: the file
// given, else the checkout's manifest/<track>.json, else, where there is
// none (run outside a checkout), the one this binary holds, which the
// server checks its corpus against. It returns the manifest and the name
// its errors give it.
func hashManifest(given string, track *corpus.Track) (*manifest.Manifest, string, error) {
	if given != "" {
		m, _, err := manifest.ReadFile(given)
		return m, given, err
	}
	file := filepath.Join("manifest", manifest.FileName(track))
	m, _, err := manifest.ReadFile(file)
	if !errors.Is(err, fs.ErrNotExist) {
		return m, file, err
	}
	name := manifest.EmbeddedName(track)
	m, err = manifest.Decode(manifest.Embedded(track))
	if err != nil {
		return nil, name, fmt.Errorf("%s: %w", name, err)
	}
	return m, name, nil
}
