package verify_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/internal/treefile"
	"github.com/arkforge/proveit-corpus/manifest/tree"
	"github.com/arkforge/proveit-corpus/manifest/verify"
)

// unopenable is a tree whose named files cannot be opened.
type unopenable struct {
	fstest.MapFS
	files []string
}

func (u unopenable) Open(name string) (fs.File, error) {
	if slices.Contains(u.files, name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return u.MapFS.Open(name)
}

// TestReadTreeFailsOnTheFirstFile: of the files that cannot be read, the
// one fs.WalkDir meets first is reported, by ReadTree as by Build.
func TestReadTreeFailsOnTheFirstFile(t *testing.T) {
	file := &fstest.MapFile{Data: []byte(`{"a": "b"}`)}
	files := fstest.MapFS{"referentiel.json": file}
	for i := range 3000 {
		files[fmt.Sprintf("agrements/AGR-%d.json", i)] = file
		files[fmt.Sprintf("entites/ENT-%d.json", i)] = file
	}
	broken := unopenable{files, []string{"entites/ENT-7.json", "agrements/AGR-2999.json", "referentiel.json"}}
	_, err := verify.ReadTree(broken, corpus.Conformity)
	require.ErrorIs(t, err, fs.ErrPermission)
	assert.Contains(t, err.Error(), "agrements/AGR-2999.json")
	_, err = manifest.Build(broken, corpus.Conformity.Name, manifest.DefaultOrigin, nil)
	assert.ErrorContains(t, err, "agrements/AGR-2999.json")

	contents, err := verify.ReadTree(files, corpus.Conformity)
	require.NoError(t, err)
	assert.Len(t, contents, 6001)
	assert.Equal(t, "entites/ENT-42.json", contents["/entites/ENT-42"].Name)
}

// TestLargeFileIsRefusedUnread puts a sparse file of 1 GiB in the place of
// a file of the season's tree on disk: start-up (Load, as at a reload),
// Check and Build each refuse it by name, having read no more of it than
// treefile.MaxSize, and the other files are checked as ever.
func TestLargeFileIsRefusedUnread(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, corpus.Conformity.Embedded()))
	data := manifest.Embedded(corpus.Conformity)
	m, err := manifest.Decode(data)
	require.NoError(t, err)
	huge := *m.Resources[len(m.Resources)-1].File
	require.NoError(t, os.Truncate(filepath.Join(root, huge), 1<<30))
	refusal := fmt.Sprintf("%s: larger than a file of the tree may be (%d bytes)", huge, treefile.MaxSize)

	for name, run := range map[string]func() error{
		"Load": func() error {
			_, _, err := verify.Load(bytes.NewReader(data), tree.Dir(root), corpus.Conformity, func(s verify.Served) []byte { return s.Body })
			return err
		},
		"Check": func() error {
			_, err := verify.Tree(m, tree.Dir(root), verify.Full, nil)
			return err
		},
		"Build": func() error {
			_, err := manifest.Build(tree.Dir(root), corpus.Conformity.Name, manifest.DefaultOrigin, nil)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := run()
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			assert.ErrorContains(t, err, refusal)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "allocated while loading a tree of 100 KiB and a file of 1 GiB")
		})
	}
	_, err = verify.Tree(m, tree.Dir(root), verify.Bytes, nil)
	var mismatch *verify.MismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Equal(t, []verify.Problem{
		{What: "extra or unreadable: " + refusal},
		{Path: m.Resources[len(m.Resources)-1].Path, File: huge, What: "missing from the tree"},
	}, mismatch.Problems, "the file too large is named, and no other")
	assert.ErrorIs(t, errorsOf(t, root), tree.ErrTooLarge)
}

// errorsOf is ReadTree's error on the tree at root.
func errorsOf(t *testing.T, root string) error {
	t.Helper()
	_, err := verify.ReadTree(tree.Dir(root), corpus.Conformity)
	return err
}

// TestDirReadsLikeDirFS reads a tree through Dir and through os.DirFS: the
// same files, the same bytes, and the same refusal of a name that is not
// a canonical resource.
func TestDirReadsLikeDirFS(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, corpus.Conformity.Embedded()))
	want, err := verify.ReadTree(os.DirFS(root), corpus.Conformity)
	require.NoError(t, err)
	got, err := verify.ReadTree(tree.Dir(root), corpus.Conformity)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	for _, f := range got {
		assert.Equal(t, len(f.Bytes), cap(f.Bytes), "%s: read into a slice of exactly its size", f.Name)
		_ = append(f.Bytes, '!') // files share chunks: growing one must leave its neighbours alone
	}
	assert.Equal(t, want, got, "after growing each file's slice")

	_, err = tree.Dir(root).ReadFile("../x.json")
	assert.Error(t, err)
	_, err = tree.Dir(root).ReadFile("missing.json")
	assert.ErrorIs(t, err, os.ErrNotExist)
	require.NoError(t, os.Mkdir(filepath.Join(root, "folder.json"), 0o755))
	_, err = tree.Dir(root).ReadFile("folder.json")
	assert.ErrorContains(t, err, "not a regular file")

	// Files smaller than, as large as and larger than the buffer of one read.
	for _, size := range []int{0, 1, 64<<10 - 1, 64 << 10, 64<<10 + 1, 300_000} {
		want := bytes.Repeat([]byte{'x'}, size)
		name := fmt.Sprintf("size-%d.json", size)
		require.NoError(t, os.WriteFile(filepath.Join(root, name), want, 0o644))
		got, err := tree.Dir(root).ReadFile(name)
		require.NoError(t, err, size)
		assert.Equal(t, want, got, size)
		assert.Equal(t, size, cap(got), "%d: read into a slice of exactly its size", size)
	}
}
