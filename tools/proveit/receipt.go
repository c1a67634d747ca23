package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/receipt"
	"github.com/arkforge/proveit-corpus/tools/score"
)

// taskName is a task id as the statements write them (conf-01, gen-10),
// which a receipt's path in the season folder is built from.
var taskName = regexp.MustCompile(`^[a-z0-9-]{1,40}$`)

// receiptLimit bounds a receipt a participant kept: a few hundred bytes.
var receiptLimit = proofs.Limit{What: "a receipt", Bytes: 16 << 10}

// recusLimit bounds a track's recus.json, as the Index reads it.
var recusLimit = proofs.Limit{What: "a track's receipts", Bytes: receipt.FileLimit}

// runReceipt checks receipts a participant kept against the season folder
// the close published: each signed by the season's receipt key, among the
// receipts published, and either the last of its task, whose exported
// submission is then exactly the bytes it acknowledged, or replaced by a
// later one of the same task.
func runReceipt(args []string, stdout io.Writer) error {
	fs := newFlagSet("receipt")
	seasonDir := fs.String("season", "", "the season folder the close published (required)")
	key := fs.String("key", "", "the season's receipt key as GET /v1/season/{n} gives it (cle_recus, base64): the published one must be it")
	fs.args = "RECEIPT.json..."
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *seasonDir == "":
		return badUsage(errors.New("-season is required: the season folder the close published"))
	case fs.NArg() == 0:
		return badUsage(errors.New("no receipt given"))
	}
	if err := requireFolder("-season", *seasonDir); err != nil {
		return err
	}
	folder, err := proofs.OpenFolder(*seasonDir)
	if err != nil {
		return badInput(err)
	}
	defer folder.Close()
	failed := false
	for _, file := range fs.Args() {
		data, err := proofs.ReadFolderFile(filepath.Dir(file), filepath.Base(file), receiptLimit)
		if err != nil {
			return badInput(err)
		}
		r, err := receipt.Decode(file, data)
		if err != nil {
			return badInput(err)
		}
		line, ok, err := checkReceipt(folder, r, *key)
		if err != nil {
			return badInput(err)
		}
		word := "OK"
		if !ok {
			word, failed = "MISMATCH", true
		}
		fmt.Fprintf(stdout, "%s %s: %s\n", word, printable.String(file), printable.String(line))
	}
	if failed {
		return errFailed
	}
	return nil
}

// checkReceipt checks one receipt against the folder: what it establishes,
// and whether it holds.
func checkReceipt(folder *proofs.Folder, r receipt.Receipt, key string) (string, bool, error) {
	name := r.Track + "/" + receipt.FileName
	if _, err := corpus.TrackNamed(r.Track); err != nil || !index.IsEnrollmentID(r.Enrollment) || !taskName.MatchString(r.TaskID) {
		return "its piste, inscription or task_id is not a name a season folder holds", false, nil
	}
	data, err := folder.Read(name, recusLimit)
	if err != nil {
		return "", false, err
	}
	published, last, err := receipt.DecodeFile(name, data)
	if err != nil {
		return "", false, err
	}
	if key != "" && key != published.Key {
		return fmt.Sprintf("%s is signed with the key %s, not %s", name, published.Key, key), false, nil
	}
	pub, _ := base64.StdEncoding.DecodeString(published.Key) // DecodeFile checked it
	if !receipt.Verify(ed25519.PublicKey(pub), r) {
		return "its signature does not verify with the season's receipt key (" + name + " /cle_recus)", false, nil
	}
	found := false
	for _, raw := range published.Receipts {
		if p, err := receipt.Decode(name, raw); err == nil && p == r {
			found = true
			break
		}
	}
	if !found {
		return "not among the receipts " + name + " publishes", false, nil
	}
	if l := last[receipt.Task{Enrollment: r.Enrollment, TaskID: r.TaskID}]; l != r {
		return fmt.Sprintf("replaced by the receipt of %s, the last of %s's %s, which the season counts", l.ReceivedAt, r.Enrollment, r.TaskID), true, nil
	}
	submission := r.Track + "/soumissions/" + r.Enrollment + "/" + r.TaskID + ".json"
	body, err := folder.Read(submission, score.SubmissionLimit)
	if err != nil {
		return "the last receipt of its task, but the export lacks its submission: " + err.Error(), false, nil
	}
	if sum := anchor.SHA256(body); sum != r.SHA256 {
		return fmt.Sprintf("the last receipt of its task, but %s has SHA-256 %s, not %s", submission, sum, r.SHA256), false, nil
	}
	return "exported as " + submission + ", the bytes it acknowledged", true, nil
}
