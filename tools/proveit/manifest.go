package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/tree"
	"github.com/arkforge/proveit-corpus/tools/season"
)

func runManifest(args []string, stdout io.Writer) error {
	fs := newFlagSet("manifest")
	var c corpusFlags
	c.register(fs)
	origin := fs.String("origin", manifest.DefaultOrigin, "origin agents reach the corpus at")
	check := fs.Bool("check", false, "do not write: fail if the manifest file differs from the one built")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return forEachTrack(&c, func(t trackFiles) error {
		built, err := buildManifest(t, *origin)
		if err != nil {
			return err
		}
		if *check {
			current, err := os.ReadFile(t.manifest)
			if err != nil {
				return err
			}
			if same, _ := encodesTo(built, bytes.NewReader(current)); !same {
				fmt.Fprintf(stdout, "%s is not the manifest of %s: run proveit manifest\n", t.manifest, t.tree)
				return errFailed
			}
			fmt.Fprintf(stdout, "%s is up to date (sha256 %s)\n", t.manifest, anchor.SHA256(current))
			return nil
		}
		sum, err := writeManifest(built, t.manifest)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (sha256 %s)\n", t.manifest, sum)
		return nil
	})
}

// buildManifest builds the manifest of a track's tree, with absent entries
// for what its task statements cite.
func buildManifest(t trackFiles, origin string) (*manifest.Manifest, error) {
	// A short-lived run whose garbage is the parsed documents: collecting
	// at four times the live heap rather than twice costs memory for a
	// while and saves a good part of the time.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	var citations []string
	if t.tasks != "" {
		tasks, err := readTasks(t)
		if err != nil {
			return nil, err
		}
		citations = tasks.Citations()
	}
	return manifest.Build(tree.Dir(t.tree), t.track.Name, origin, citations)
}

// writeManifest writes a manifest to a file, as os.WriteFile would write
// its encoding, and returns the SHA-256 of the bytes written.
func writeManifest(m *manifest.Manifest, file string) (sum string, err error) {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", err
	}
	defer func() {
		if closeErr := f.Close(); err == nil {
			err = closeErr
		}
	}()
	h := sha256.New()
	if _, err := m.WriteTo(io.MultiWriter(f, h)); err != nil {
		return "", err
	}
	return anchor.HexSHA256([sha256.Size]byte(h.Sum(nil))), nil
}

// encodesTo reports whether m encodes to exactly the bytes r holds, which
// are read as they are compared, a chunk at a time. The error is r's.
func encodesTo(m *manifest.Manifest, r io.Reader) (bool, error) {
	c := comparer{r: r}
	m.WriteTo(&c) //nolint:errcheck // a comparer never fails: it records what it finds
	if !c.differs && c.err == nil {
		// Nothing may follow.
		var more [1]byte
		switch n, err := io.ReadFull(r, more[:]); {
		case n > 0:
			c.differs = true
		case err != io.EOF:
			c.err = err
		}
	}
	return !c.differs && c.err == nil, c.err
}

// comparer compares what is written to it with what it reads next from r.
type comparer struct {
	r       io.Reader
	buf     []byte
	differs bool
	err     error // reading r failed
}

func (c *comparer) Write(p []byte) (int, error) {
	if c.differs || c.err != nil {
		return len(p), nil
	}
	c.buf = slices.Grow(c.buf[:0], len(p))[:len(p)]
	switch _, err := io.ReadFull(c.r, c.buf); {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		c.differs = true
	case err != nil:
		c.err = err
	default:
		c.differs = !bytes.Equal(p, c.buf)
	}
	return len(p), nil
}

// readTasks reads a track's statements and checks they are that track's.
func readTasks(t trackFiles) (*season.Tasks, error) {
	tasks, err := season.ReadTasks(t.tasks)
	if err == nil && tasks.Track != t.track.Name {
		err = fmt.Errorf("%s: piste %q, want %q", t.tasks, tasks.Track, t.track.Name)
	}
	return tasks, err
}
