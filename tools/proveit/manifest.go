package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/arkforge/proveit-corpus/manifest"
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
			if !encodesTo(built, current) {
				fmt.Fprintf(stdout, "%s is not the manifest of %s: run proveit manifest\n", t.manifest, t.tree)
				return errFailed
			}
			fmt.Fprintf(stdout, "%s is up to date (sha256 %s)\n", t.manifest, manifest.SHA256(current))
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
	return manifest.Build(manifest.Dir(t.tree), t.track.Name, origin, citations)
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
	return manifest.HexSHA256([sha256.Size]byte(h.Sum(nil))), nil
}

// encodesTo reports whether m encodes to exactly want, without holding its
// own bytes all at once.
func encodesTo(m *manifest.Manifest, want []byte) bool {
	c := comparer{want: want}
	m.WriteTo(&c) //nolint:errcheck // a comparer never fails
	return !c.differs && len(c.want) == 0
}

// comparer compares what is written to it with the bytes it wants next.
type comparer struct {
	want    []byte
	differs bool
}

func (c *comparer) Write(p []byte) (int, error) {
	if !c.differs && len(p) <= len(c.want) && bytes.Equal(p, c.want[:len(p)]) {
		c.want = c.want[len(p):]
	} else {
		c.differs = true
	}
	return len(p), nil
}

// readTasks reads a track's statements and checks they are that track's.
func readTasks(t trackFiles) (*season.Tasks, error) {
	tasks, err := season.ReadTasks(t.tasks)
	if err == nil && tasks.Piste != t.track.Name {
		err = fmt.Errorf("%s: piste %q, want %q", t.tasks, tasks.Piste, t.track.Name)
	}
	return tasks, err
}
