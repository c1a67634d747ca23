package manifest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
)

// walkDirTree lists a tree with fs.WalkDir, the order and the refusals
// listTree must reproduce while listing folders concurrently.
func walkDirTree(tree fs.FS, track *corpus.Track) (*treeFiles, error) {
	var l treeFiles
	err := fs.WalkDir(tree, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		l.add(track, name, d.Type())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &l, nil
}

func TestListTreeIsWalkDir(t *testing.T) {
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
			want, err := walkDirTree(tree, corpus.Conformite)
			require.NoError(t, err)
			got, err := listTree(tree, corpus.Conformite)
			require.NoError(t, err)
			assert.Equal(t, want.names, got.names)
			assert.Equal(t, want.paths, got.paths)
			assert.Equal(t, fmt.Sprint(want.refused), fmt.Sprint(got.refused))
		})
	}
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

// TestListTreeFailsAsWalkDir: a folder that cannot be listed fails the
// listing with the error fs.WalkDir meets first.
func TestListTreeFailsAsWalkDir(t *testing.T) {
	file := &fstest.MapFile{Data: []byte(`{"a": "b"}`)}
	tree := fstest.MapFS{"agrements/AGR-1.json": file, "entites/ENT-1.json": file, "entites/x/ENT-2.json": file, "referentiel.json": file}
	for _, folders := range [][]string{{"entites"}, {"entites/x"}, {"entites", "agrements"}, {"entites/x", "agrements"}, {"."}} {
		_, want := walkDirTree(unreadable{tree, folders}, corpus.Conformite)
		require.Error(t, want)
		_, got := listTree(unreadable{tree, folders}, corpus.Conformite)
		assert.Equal(t, want, got, "%v", folders)
	}
	missing := Dir(filepath.Join(t.TempDir(), "missing"))
	_, want := walkDirTree(missing, corpus.Conformite)
	_, got := listTree(missing, corpus.Conformite)
	require.ErrorIs(t, got, fs.ErrNotExist)
	assert.Equal(t, want.Error(), got.Error())
}

// TestDirListsLikeDirFS lists a folder on disk straight from the kernel's
// records and through os.DirFS: the same entries, types and order.
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
	require.NoError(t, os.Symlink("AGR-1.json", filepath.Join(root, "agrements", "AGR-2.json")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "agrements", "AGR-4.json"), 0o644))
	for _, folder := range []string{".", "agrements", "agrements/sub", "empty", "zz", "zz/deep"} {
		want, err := fs.ReadDir(os.DirFS(root), folder)
		require.NoError(t, err)
		got, err := Dir(root).readFolder(folder)
		require.NoError(t, err)
		require.Len(t, got, len(want), folder)
		for i := range want {
			assert.Equal(t, join(folder, want[i].Name()), got[i].name)
			assert.Equal(t, want[i].Name(), got[i].name[got[i].base:])
			assert.Equal(t, want[i].Type(), got[i].typ, got[i].name)
		}
	}
	want, err := walkDirTree(os.DirFS(root), corpus.Conformite)
	require.NoError(t, err)
	got, err := listTree(Dir(root), corpus.Conformite)
	require.NoError(t, err)
	assert.Equal(t, want.names, got.names)
	assert.Equal(t, want.paths, got.paths)
	assert.Equal(t, fmt.Sprint(want.refused), fmt.Sprint(got.refused))

	_, wantErr := fs.ReadDir(os.DirFS(root), "missing")
	_, gotErr := Dir(root).readFolder("missing")
	assert.Equal(t, wantErr.Error(), gotErr.Error())
	_, wantErr = fs.ReadDir(os.DirFS(root), "b.json")
	_, gotErr = Dir(root).readFolder("b.json")
	assert.Equal(t, wantErr.Error(), gotErr.Error())
}

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
	tree := fstest.MapFS{"referentiel.json": file}
	for i := range 3000 {
		tree[fmt.Sprintf("agrements/AGR-%d.json", i)] = file
		tree[fmt.Sprintf("entites/ENT-%d.json", i)] = file
	}
	broken := unopenable{tree, []string{"entites/ENT-7.json", "agrements/AGR-2999.json", "referentiel.json"}}
	_, err := ReadTree(broken, corpus.Conformite)
	require.ErrorIs(t, err, fs.ErrPermission)
	assert.Contains(t, err.Error(), "agrements/AGR-2999.json")
	_, err = Build(broken, corpus.Conformite.Name, DefaultOrigin, nil)
	assert.ErrorContains(t, err, "agrements/AGR-2999.json")

	contents, err := ReadTree(tree, corpus.Conformite)
	require.NoError(t, err)
	assert.Len(t, contents, 6001)
	assert.Equal(t, "entites/ENT-42.json", contents["/entites/ENT-42"].Name)
}
