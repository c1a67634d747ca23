package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/gencorpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// corpusSet is a tree and its manifest, as the servers and tools read them.
type corpusSet struct {
	Name     string
	Track    *corpus.Track // whose manifest it has
	Tree     string        // absolute folder of the tree
	Manifest string        // absolute manifest file
	Tasks    string        // task statements cited by the manifest, "" for none
	Embedded bool          // the corpus server serves it from its binary
	Files    int
	Bytes    int64
	Entries  int
	// ManifestBytes is the size of the manifest file.
	ManifestBytes int64
	manifest      *manifest.Manifest
	// Generation is how long writing a generated corpus and its manifest
	// took (writeGenerated).
	Generation time.Duration
}

// seasonCorpus is a track's checked-in season-1 tree of the repository at
// root, served from the binary; name is what the report calls it.
func seasonCorpus(root, name string, track *corpus.Track) (*corpusSet, error) {
	c := &corpusSet{
		Name:     name,
		Track:    track,
		Tree:     filepath.Join(root, "corpus", track.Name),
		Manifest: filepath.Join(root, "manifest", manifest.FileName(track)),
		Tasks:    filepath.Join(root, season.TasksFile(track)),
		Embedded: true,
	}
	return c, c.load()
}

// generateCorpus writes a synthetic corpus and its manifest.
func (b *bench) generateCorpus(n int) (*corpusSet, error) {
	b.log("generating a corpus of %d resources", n)
	start := time.Now()
	tree, manifestFile, err := writeGenerated(filepath.Join(b.work, "generated"), gencorpus.Options{Resources: n, Seed: 1})
	if err != nil {
		return nil, err
	}
	c := &corpusSet{
		Name:       fmt.Sprintf("generated, %d resources", n),
		Track:      gencorpus.Track,
		Tree:       tree,
		Manifest:   manifestFile,
		Generation: time.Since(start),
	}
	writeBack()
	return c, c.load()
}

// writeGenerated writes a generated corpus into dir: its tree in
// dir/<track> and its manifest, built by manifest.Build, in
// dir/<track>.json. The tree's folder must not exist yet.
func writeGenerated(dir string, o gencorpus.Options) (tree, manifestFile string, err error) {
	files, err := gencorpus.Tree(o)
	if err != nil {
		return "", "", err
	}
	m, err := manifest.Build(files, gencorpus.Track.Name, manifest.DefaultOrigin, nil)
	if err != nil {
		return "", "", fmt.Errorf("the manifest of the generated tree: %w", err)
	}
	tree, manifestFile = filepath.Join(dir, gencorpus.Track.Name), filepath.Join(dir, gencorpus.Track.Name+".json")
	if _, err := os.Stat(tree); !errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("%s already exists: choose an empty folder", tree)
	}
	// File by file: os.CopyFS would list fstest.MapFS's folders, each
	// listing a scan of every file, and take seconds on 100,000 of them.
	made := map[string]bool{}
	for name, f := range files {
		path := filepath.Join(tree, filepath.FromSlash(name))
		if dir := filepath.Dir(path); !made[dir] {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", "", err
			}
			made[dir] = true
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return "", "", err
		}
	}
	return tree, manifestFile, os.WriteFile(manifestFile, m.Encode(), 0o644)
}

// load reads the manifest and sizes the tree.
func (c *corpusSet) load() error {
	for _, p := range []*string{&c.Tree, &c.Manifest, &c.Tasks} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return err
			}
			*p = abs
		}
	}
	data, err := os.ReadFile(c.Manifest)
	if err != nil {
		return err
	}
	c.ManifestBytes = int64(len(data))
	if c.manifest, err = manifest.Decode(data); err != nil {
		return err
	}
	c.Entries = len(c.manifest.Resources)
	return filepath.WalkDir(c.Tree, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		c.Files++
		c.Bytes += info.Size()
		return err
	})
}

// documents are the paths served with a file's bytes.
func (c *corpusSet) documents() []string {
	var paths []string
	for _, e := range c.manifest.Resources {
		if e.Kind == manifest.Document {
			paths = append(paths, e.Path)
		}
	}
	return paths
}

// Shares of the request mix besides the resources themselves.
const (
	absentShare    = 0.05
	forbiddenShare = 0.05
)

// writeMix writes the request mix of a corpus, in the targets format of
// harness/loadgen and mix.lua: every resource once, with the secret; absent
// references (the manifest's, then made-up ids) and the same number of
// requests without the secret (the 403 path), shuffled with a fixed seed.
func (b *bench) writeMix(c *corpusSet) (string, error) {
	docs := c.documents()
	var lines []string
	for _, p := range docs {
		lines = append(lines, "+ "+p)
	}
	var absent []string
	for _, e := range c.manifest.Resources {
		if e.Kind == manifest.Absent {
			absent = append(absent, e.Path)
		}
	}
	extra := max(1, int(float64(len(docs))*absentShare))
	for i := 0; len(absent) < extra; i++ {
		absent = append(absent, fmt.Sprintf("/%s/ABSENT-%06d", corpus.Collections[i%len(corpus.Collections)], i))
	}
	for _, p := range absent[:extra] {
		lines = append(lines, "+ "+p)
	}
	forbidden := max(1, int(float64(len(docs))*forbiddenShare))
	for i := range forbidden {
		lines = append(lines, "- "+docs[i*len(docs)/forbidden])
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	file := filepath.Join(b.work, strings.ReplaceAll(c.Name, " ", "-")+".mix")
	return file, os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
