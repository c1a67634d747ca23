package tree

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
)

// diskSources are the ways a Dir may be read, by name: Dir's own, and on
// Linux the system-call yardstick.
var diskSources = map[string]func(Dir) source{
	"portable": func(d Dir) source { return d.source() },
}

// rule is the conformity track's: a file of the tree is a resource of it.
var rule Rule = corpus.Conformity.PathOf

// list lists a tree as Scan does, from src, without reading its files.
func list(tree fs.FS, src source, rule Rule) (*Files, error) {
	files, _, err := walk[struct{}](tree, src, rule, nil).flatten()
	return files, err
}

// walkDirTree lists a tree with fs.WalkDir, the order and the refusals
// list must reproduce while listing folders concurrently.
func walkDirTree(tree fs.FS) (*Files, error) {
	var l Files
	err := fs.WalkDir(tree, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		l.add(rule, name, d.Type())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &l, nil
}

func assertSameFiles(t *testing.T, want, got *Files, msgAndArgs ...any) {
	t.Helper()
	assert.Equal(t, want.Names, got.Names, msgAndArgs...)
	assert.Equal(t, want.Keys, got.Keys, msgAndArgs...)
	assert.Equal(t, fmt.Sprint(want.Refused), fmt.Sprint(got.Refused), msgAndArgs...)
}

func TestListIsWalkDir(t *testing.T) {
	file := &fstest.MapFile{Data: []byte(`{"a": "b"}`)}
	trees := map[string]fstest.MapFS{
		"flat": {"referentiel.json": file},
		"nested, with files between folders and refusals": {
			"_systeme/400.json":          file,
			"_systeme/a/b/c.json":        file,
			"agrements/AGR-2.json":       file,
			"agrements/AGR-1.json":       file,
			"agrements/AGR-1.5.json":     file,
			"agrements/notes.txt":        file,
			"agrements/sub/AGR-3.json":   file,
			"agrements/zz/AGR-4.json":    file,
			"agrements/zzz.json":         file,
			"b.json":                     file,
			"entites/ENT-1.json":         file,
			"entites/link.json":          &fstest.MapFile{Mode: fs.ModeSymlink},
			"referentiel.json":           file,
			"regles-achat.json":          file,
			"zz/deep/deeper/deepest.txt": file,
			"empty":                      &fstest.MapFile{Mode: fs.ModeDir},
		},
	}
	for name, tree := range trees {
		t.Run(name, func(t *testing.T) {
			want, err := walkDirTree(tree)
			require.NoError(t, err)
			got, err := list(tree, sourceOf(tree), rule)
			require.NoError(t, err)
			assertSameFiles(t, want, got)

			root := t.TempDir()
			require.NoError(t, os.CopyFS(root, withoutSymlinks(tree)))
			want, err = walkDirTree(os.DirFS(root))
			require.NoError(t, err)
			for reader, src := range diskSources {
				got, err := list(Dir(root), src(Dir(root)), rule)
				require.NoError(t, err, reader)
				assertSameFiles(t, want, got, reader)
			}
		})
	}
}

// withoutSymlinks is tree without its symbolic links, which os.CopyFS
// does not copy.
func withoutSymlinks(tree fstest.MapFS) fstest.MapFS {
	return fstest.MapFS(maps.Collect(func(yield func(string, *fstest.MapFile) bool) {
		for name, f := range tree {
			if f.Mode&fs.ModeSymlink == 0 && !yield(name, f) {
				return
			}
		}
	}))
}

// unreadable is a tree whose named folders cannot be listed.
type unreadable struct {
	fstest.MapFS
	folders []string
}

func (u unreadable) ReadDir(name string) ([]fs.DirEntry, error) {
	if slices.Contains(u.folders, name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrPermission}
	}
	return u.MapFS.ReadDir(name)
}

// TestListFailsAsWalkDir: a folder that cannot be listed fails the
// listing with the error fs.WalkDir meets first.
func TestListFailsAsWalkDir(t *testing.T) {
	file := &fstest.MapFile{Data: []byte(`{"a": "b"}`)}
	tree := fstest.MapFS{"agrements/AGR-1.json": file, "entites/ENT-1.json": file, "entites/x/ENT-2.json": file, "referentiel.json": file}
	for _, folders := range [][]string{{"entites"}, {"entites/x"}, {"entites", "agrements"}, {"entites/x", "agrements"}, {"."}} {
		broken := unreadable{tree, folders}
		_, want := walkDirTree(broken)
		require.Error(t, want)
		_, got := list(broken, sourceOf(broken), rule)
		assert.Equal(t, want, got, "%v", folders)
	}
	missing := Dir(filepath.Join(t.TempDir(), "missing"))
	_, want := walkDirTree(missing)
	for reader, src := range diskSources {
		_, got := list(missing, src(missing), rule)
		require.ErrorIs(t, got, fs.ErrNotExist, reader)
		assert.Equal(t, want.Error(), got.Error(), reader)
	}
}

// TestDirListsLikeDirFS lists folders on disk with each reader and through
// os.DirFS: the same entries, types and order, and the same errors.
func TestDirListsLikeDirFS(t *testing.T) {
	root := t.TempDir()
	for name, data := range map[string]string{
		"referentiel.json": `{"a": "b"}`, "b.json": "", "agrements/AGR-1.json": "", "agrements/AGR-1.5.json": "",
		"agrements/AGR-10.json": "", "agrements/notes.txt": "", "agrements/sub/AGR-3.json": "", "zz/deep/er.json": "",
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(data), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(root, "empty"), 0o755))
	makeSpecialFiles(t, filepath.Join(root, "agrements"))
	for reader, src := range diskSources {
		for _, folder := range []string{".", "agrements", "agrements/sub", "empty", "zz", "zz/deep"} {
			want, err := fs.ReadDir(os.DirFS(root), folder)
			require.NoError(t, err)
			got, err := src(Dir(root)).list(folder)
			require.NoError(t, err)
			require.Len(t, got, len(want), "%s: %s", reader, folder)
			for i := range want {
				assert.Equal(t, join(folder, want[i].Name()), got[i].name, reader)
				assert.Equal(t, want[i].Name(), got[i].name[got[i].base:], reader)
				assert.Equal(t, want[i].Type(), got[i].typ, "%s: %s", reader, got[i].name)
			}
		}
		want, err := walkDirTree(os.DirFS(root))
		require.NoError(t, err)
		got, err := list(Dir(root), src(Dir(root)), rule)
		require.NoError(t, err)
		assertSameFiles(t, want, got, reader)

		for _, folder := range []string{"missing", "b.json"} {
			_, wantErr := fs.ReadDir(os.DirFS(root), folder)
			_, gotErr := src(Dir(root)).list(folder)
			assert.Equal(t, wantErr.Error(), gotErr.Error(), "%s: %s", reader, folder)
		}
	}
}

// scanned is what a scan read of a tree: its files, their bytes, and the
// error.
type scanned struct {
	files *Files
	bytes map[string]string
	err   string
}

func scanWith(tree fs.FS, src source, maxSize int64) scanned {
	files, data, err := scan(tree, src, rule, maxSize, func(_ int, name, _ string, b []byte) string { return name + "\x00" + string(b) })
	s := scanned{files: files, err: fmt.Sprint(err)}
	if err == nil {
		s.bytes = map[string]string{}
		for _, d := range data {
			name, body, _ := strings.Cut(d, "\x00")
			s.bytes[name] = body
		}
	}
	return s
}

// TestReadersReadAlike scans the same trees on disk with each reader, and
// through os.DirFS as any fs.FS is read: the same files, the same bytes,
// the same refusals and errors.
func TestReadersReadAlike(t *testing.T) {
	season := t.TempDir()
	require.NoError(t, os.CopyFS(season, corpus.Conformity.Embedded()))
	mixed := t.TempDir()
	for name, size := range map[string]int{
		"referentiel.json": 10, "b.json": 0, "agrements/AGR-1.json": smallFile - 1, "agrements/AGR-2.json": smallFile,
		"agrements/AGR-3.json": smallFile + 1, "agrements/AGR-4.json": 300_000, "agrements/AGR-5.json": 1 << 20,
		"agrements/AGR-6.json": 1<<20 + 1, "agrements/notes.txt": 3, "entites/x/ENT-1.json": 5,
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(mixed, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(mixed, name), pattern(size), 0o644))
	}
	makeSpecialFiles(t, filepath.Join(mixed, "agrements"))
	for name, root := range map[string]string{"season": season, "mixed": mixed} {
		t.Run(name, func(t *testing.T) {
			want := scanWith(os.DirFS(root), fsSource{os.DirFS(root)}, 1<<20)
			require.NotNil(t, want.files, want.err)
			for reader, src := range diskSources {
				got := scanWith(Dir(root), src(Dir(root)), 1<<20)
				assert.Equal(t, want.err, got.err, reader)
				require.NotNil(t, got.files, reader)
				assertSameFiles(t, want.files, got.files, reader)
				assert.Equal(t, want.bytes, got.bytes, reader)
			}
		})
	}

	// Files that fail when read: each reader fails alike.
	require.NoError(t, os.Mkdir(filepath.Join(mixed, "folder.json"), 0o755))
	for _, name := range []string{"missing.json", "folder.json", "agrements/AGR-6.json", "missing/ENT-1.json"} {
		folder, base := filepath.Split(name)
		folder = filepath.Clean(folder)
		var wantErr error
		for reader, src := range diskSources {
			r := src(Dir(mixed)).open(folder)
			_, err := r.read(new(buffer), base, name, 1<<20)
			r.close()
			require.Error(t, err, "%s: %s", reader, name)
			if wantErr == nil {
				wantErr = err
			}
			assert.Equal(t, wantErr.Error(), err.Error(), "%s: %s", reader, name)
		}
	}
}

// pattern is size bytes that differ from one offset to the next.
func pattern(size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

// TestScanRefusesLargeFilesUnread puts a sparse file of 1 GiB in a tree
// on disk, and a file larger than allowed in a tree in memory: each is
// refused, naming the file, and memory shows it was not read.
func TestScanRefusesLargeFilesUnread(t *testing.T) {
	const maxSize = 1 << 20
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "entites"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "referentiel.json"), []byte(`{"a": "b"}`), 0o644))
	huge := filepath.Join(root, "entites", "ENT-1.json")
	require.NoError(t, os.WriteFile(huge, []byte(`{"a": "b"}`), 0o644))
	require.NoError(t, os.Truncate(huge, 1<<30))
	memory := fstest.MapFS{
		"referentiel.json":   {Data: []byte(`{"a": "b"}`)},
		"entites/ENT-1.json": {Data: make([]byte, maxSize+1)},
	}
	trees := map[string]struct {
		tree fs.FS
		src  source
	}{"in memory": {memory, sourceOf(memory)}}
	for reader, src := range diskSources {
		trees[reader] = struct {
			tree fs.FS
			src  source
		}{Dir(root), src(Dir(root))}
	}
	for name, tt := range trees {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			files, data, err := scan(tt.tree, tt.src, rule, maxSize, func(_ int, _, _ string, b []byte) int { return len(b) })
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			assert.Equal(t, []string{"referentiel.json"}, files.Names)
			assert.Equal(t, []int{10}, data)
			require.Len(t, files.Refused, 1)
			assert.ErrorIs(t, files.Refused[0], ErrTooLarge)
			assert.EqualError(t, files.Refused[0], "entites/ENT-1.json: larger than a file of the tree may be (1048576 bytes)")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8*maxSize), "allocated while scanning")
		})
	}
}

// TestDirReadFile reads files of a Dir whole, into slices of exactly their
// size, and refuses what is not a regular file.
func TestDirReadFile(t *testing.T) {
	root := t.TempDir()
	for _, size := range []int{0, 1, smallFile - 1, smallFile, smallFile + 1, 300_000, 2 << 20} {
		want := pattern(size)
		name := fmt.Sprintf("size-%d.json", size)
		require.NoError(t, os.WriteFile(filepath.Join(root, name), want, 0o644))
		got, err := Dir(root).ReadFile(name)
		require.NoError(t, err, size)
		assert.Equal(t, want, got, size)
		assert.Equal(t, size, cap(got), "%d: read into a slice of exactly its size", size)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "b", "c.json"), []byte("c"), 0o644))
	got, err := Dir(root).ReadFile("a/b/c.json")
	require.NoError(t, err)
	assert.Equal(t, "c", string(got))

	_, err = Dir(root).ReadFile("../x.json")
	assert.ErrorIs(t, err, fs.ErrInvalid)
	_, err = Dir(root).ReadFile("missing.json")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = Dir(root).ReadFile("a/b")
	assert.EqualError(t, err, "read a/b: not a regular file")
	assert.NoError(t, fstest.TestFS(Dir(filepath.Join(root, "a")), "b/c.json"))
}
