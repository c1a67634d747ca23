package index

import (
	"fmt"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/receipt"
)

// receiptsLimit bounds a track's recus.json.
var receiptsLimit = proofs.Limit{What: "a track's receipts", Bytes: receipt.FileLimit}

// receipts are the last receipt of each enrollment's task, as the season
// service's close exported them (recus.json); nil when the season's folder
// holds none (a season exported by other means).
type receipts receipt.Last

// readReceipts reads a track's recus.json when the folder holds one: every
// receipt signed by its key, of the track and the season, and each
// receipted submission exported.
func (in *trackInputs) readReceipts() error {
	name := in.track.Name + "/" + receipt.FileName
	present, err := in.folder.Present(name)
	if err != nil || !present {
		return err
	}
	data, err := in.folder.Read(name, receiptsLimit)
	if err != nil {
		return err
	}
	f, last, err := receipt.DecodeFile(name, data)
	if err != nil {
		return err
	}
	if f.Track != in.track.Name || f.Season != in.enrollments.Season {
		return fmt.Errorf("%s: receipts of season %d, track %q, not this folder's", name, f.Season, f.Track)
	}
	for task := range last {
		file := in.submissionsDir(task.Enrollment) + "/" + task.TaskID + ".json"
		if present, err := in.folder.Present(file); err != nil || !present {
			return fmt.Errorf("%s: the last receipt of %s's %s names a submission the export lacks (%s)", name, task.Enrollment, task.TaskID, file)
		}
	}
	in.receipts = receipts(last)
	return nil
}

// checkReceipt holds an exported submission to its last receipt: the
// bytes the service acknowledged, and no others.
func (in *trackInputs) checkReceipt(file, enrollment, task string, data []byte) error {
	if in.receipts == nil {
		return nil
	}
	r, ok := in.receipts[receipt.Task{Enrollment: enrollment, TaskID: task}]
	switch {
	case !ok:
		return fmt.Errorf("%s: no receipt of the season service in %s: not a submission it accepted", file, receipt.FileName)
	case anchor.SHA256(data) != r.SHA256:
		return fmt.Errorf("%s: SHA-256 %s, not the %s of its last receipt (%s, received %s)", file, anchor.SHA256(data), r.SHA256, receipt.FileName, r.ReceivedAt)
	}
	return nil
}
