package proofs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A views folder holds what a replay reads of Trust Layer and Rekor, as
// `proveit proofs fetch` writes it: <proof_id>.json, each proof's public
// view as Trust Layer served it, and rekor/<uuid>.json, each batch's Rekor
// entry as Rekor served it.

// ViewFile is where a folder keeps a proof's public view.
func ViewFile(dir, proofID string) string { return filepath.Join(dir, proofID+".json") }

// EntryFile is where a folder keeps a Rekor entry.
func EntryFile(dir, uuid string) string { return filepath.Join(dir, "rekor", uuid+".json") }

// Settled reports whether a view can no longer change: its batch is
// anchored, or it predates batches. A pending view is read again.
func (v *View) Settled() bool { return v.Batch == nil || v.Batch.Status == anchoredStatus }

// Limit is the most a kind of file in a views folder may hold, named for
// the message that refuses a larger one.
type Limit struct {
	What  string // "a public view"
	Bytes int64
}

// The limits of a views folder's files.
var (
	ViewLimit  = Limit{"a public view", MaxViewSize}
	EntryLimit = Limit{"a Rekor entry", MaxEntrySize}
)

// ReadFolderFile reads the file name (slash-separated, such as
// "rekor/<uuid>.json") of the folder dir: OpenFolder and Read, for one
// file.
func ReadFolderFile(dir, name string, limit Limit) ([]byte, error) {
	f, err := OpenFolder(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Read(name, limit)
}

// Folder is a folder published by anyone (a views folder, a season's),
// read as such a folder must be: within it (through os.Root, so that no
// link, whatever git or tar kept, leads out of it), a regular file only
// (a named pipe or a device is refused before it is opened: reading
// either never ends), and no more than a limit's bytes, its size checked
// before it is read and the read itself bounded. Every error names the
// file; one that is not there wraps fs.ErrNotExist.
type Folder struct {
	dir  string
	root *os.Root
}

// OpenFolder opens dir for reading as a Folder; Close releases it.
func OpenFolder(dir string) (*Folder, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, pathReason(err))
	}
	return &Folder{dir: dir, root: root}, nil
}

// Close releases the folder.
func (f *Folder) Close() error { return f.root.Close() }

// Path is name's path on this machine, for messages.
func (f *Folder) Path(name string) string { return filepath.Join(f.dir, filepath.FromSlash(name)) }

// Read reads the file name (slash-separated) of the folder, of at most
// limit's bytes.
func (f *Folder) Read(name string, limit Limit) ([]byte, error) {
	data, err := readRegular(f.root, name, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path(name), err)
	}
	return data, nil
}

// Present reports whether the folder holds something at name, whatever
// it is: a dangling link or a FIFO is present, and reading it is then an
// error that names it, never a reason to fall back on a default.
func (f *Folder) Present(name string) (bool, error) {
	_, err := f.root.Lstat(name)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("%s: %w", f.Path(name), pathReason(err))
}

// ReadDir lists the folder name (slash-separated) of the folder, sorted
// by name, within the folder only; at most max entries, more being an
// error (a folder of a million files is not read whole).
func (f *Folder) ReadDir(name string, max int) ([]fs.DirEntry, error) {
	d, err := f.root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path(name), pathReason(err))
	}
	defer d.Close()
	info, err := d.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path(name), pathReason(err))
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: not a folder: refused", f.Path(name))
	}
	entries, err := d.ReadDir(max + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", f.Path(name), pathReason(err))
	}
	if len(entries) > max {
		return nil, fmt.Errorf("%s: more than %d entries: refused", f.Path(name), max)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// readRegular reads name within root: a regular file of at most limit's
// bytes, checked by its metadata before it is opened, and again once open
// in case it was replaced in between.
func readRegular(root *os.Root, name string, limit Limit) ([]byte, error) {
	info, err := root.Stat(name) // a link is followed, within the root only
	if err != nil {
		if link, target, ok := linkOnTheWay(root, name); ok && !errors.Is(err, fs.ErrNotExist) {
			if link != name {
				return nil, fmt.Errorf("its folder %s is a link to %s, out of the views folder: not followed", link, target)
			}
			return nil, fmt.Errorf("a link to %s, out of the folder: not followed", target)
		}
		return nil, pathReason(err)
	}
	if err := regularWithin(info, limit); err != nil {
		return nil, err
	}
	f, err := root.OpenFile(name, openReadOnly, 0)
	if err != nil {
		return nil, pathReason(err)
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, pathReason(err)
	}
	if err := regularWithin(info, limit); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit.Bytes+1))
	if err != nil {
		return nil, pathReason(err)
	}
	if int64(len(data)) > limit.Bytes {
		return nil, fmt.Errorf("more than the %d bytes %s may hold", limit.Bytes, limit.What)
	}
	return data, nil
}

// linkOnTheWay finds the first link on the way to name (name itself, or a
// folder it is in), to say which one a refusal is for.
func linkOnTheWay(root *os.Root, name string) (link, target string, found bool) {
	parts := strings.Split(name, "/")
	for i := range parts {
		link = strings.Join(parts[:i+1], "/")
		if target, err := root.Readlink(link); err == nil {
			return link, target, true
		}
	}
	return "", "", false
}

// regularWithin refuses anything but a regular file of at most limit's
// bytes.
func regularWithin(info fs.FileInfo, limit Limit) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s, not a regular file: refused", kindOf(info.Mode()))
	}
	if info.Size() > limit.Bytes {
		return fmt.Errorf("%d bytes, over the %d %s may hold", info.Size(), limit.Bytes, limit.What)
	}
	return nil
}

// kindOf names a file that is not regular.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// pathReason is err without the operation and path a *PathError repeats:
// the caller names the file once.
func pathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadView reads a proof's view from a folder (ReadFolderFile); a view
// that is not there is an error wrapping fs.ErrNotExist. Any other error
// names the file and why it cannot be a view.
func ReadView(dir, proofID string) (*View, error) {
	if !ValidProofID(proofID) {
		return nil, &ProofIDError{ID: proofID}
	}
	file := ViewFile(dir, proofID)
	data, err := ReadFolderFile(dir, proofID+".json", ViewLimit)
	if err != nil {
		return nil, err
	}
	v, err := ParseView(file, data)
	if err != nil {
		return nil, err
	}
	if v.ProofID != proofID {
		return nil, fmt.Errorf("%s /proof_id: %q, not the proof the file is named for", file, v.ProofID)
	}
	return v, nil
}

// readEntry reads the Rekor entry a view names from a folder: nil when the
// view names none it could be (an unverifiable uuid) or the folder lacks
// it, which verification reports as not supplied; an error names the file
// of an entry the folder holds but that cannot be read.
func readEntry(dir string, v *View) ([]byte, error) {
	if v.Log == nil || !ValidRekorUUID(v.Log.UUID) {
		return nil, nil
	}
	data, err := ReadFolderFile(dir, "rekor/"+v.Log.UUID+".json", EntryLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Citation is one proof as a submission cites it: with the submission's
// DID and its disclosure, or alone (both zero) to verify a view by itself.
type Citation struct {
	ProofID    string
	AgentDID   string
	Disclosure *Disclosure
}

// VerifyFolder verifies each cited proof from a views folder, once per
// proof id (the first citation's disclosure; a second, different one is
// the replay's to refuse). A proof the folder holds no view of fails
// CheckViewMissing (so does an id no proof can have): as far as any reader
// can tell, it does not exist. A view that cannot be read (not a regular
// file within the folder, too large, not a public view of that proof)
// fails CheckViewUnreadable, and an entry that cannot be read leaves its
// proofs' Rekor entry not supplied, each with the file and why as the
// check's detail: one file fails its proofs alone, never the others.
//
// The proofs are verified on the verifier's workers (every core by
// default); the results are those of one worker.
func (vr *Verifier) VerifyFolder(dir string, cites []Citation) map[string]Result {
	vr.mustBeMade()
	var unique []Citation
	seen := make(map[string]bool, len(cites))
	for _, c := range cites {
		if !seen[c.ProofID] {
			seen[c.ProofID] = true
			unique = append(unique, c)
		}
	}
	results := make([]Result, len(unique))
	entries := newEntryCache(dir)                // a batch's entry, read once for its hundred proofs
	_ = vr.each(len(unique), func(i int) error { // one file fails its proofs alone: no error stops the others
		c := unique[i]
		view, err := ReadView(dir, c.ProofID)
		switch {
		case !ValidProofID(c.ProofID) || errors.Is(err, fs.ErrNotExist):
			results[i] = failed(CheckViewMissing, err)
		case err != nil:
			results[i] = failed(CheckViewUnreadable, err)
		default:
			entry, entryErr := entries.read(view)
			results[i] = vr.Verify(Input{View: view, Entry: entry, EntryErr: entryErr, Disclosure: c.Disclosure, AgentDID: c.AgentDID})
		}
		return nil
	})
	out := make(map[string]Result, len(unique))
	for i, c := range unique {
		out[c.ProofID] = results[i]
	}
	return out
}

// Outcomes are the verifier's input the results establish, by proof id.
func Outcomes(results map[string]Result) map[string]Outcome {
	out := make(map[string]Outcome, len(results))
	for id, r := range results {
		out[id] = r.Outcome
	}
	return out
}
