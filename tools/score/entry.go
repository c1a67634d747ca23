package score

import (
	"errors"
	"fmt"

	"github.com/arkforge/proveit-corpus/tools/season"
)

// EntryCheck is the replay's "rejected at entry" (spec §4, docs/contract.md
// section 6) on its own, for the season service to refuse a submission
// before recording it by the very code the replay scores with: what needs
// the statements only, never the corpus, the manifest or the key, which
// are sealed until the close. Build it once per track (NewEntryCheck); it
// is only read afterwards, so Check is safe for concurrent use.
type EntryCheck struct {
	tasks *season.Tasks
	rules *season.Rules
}

// NewEntryCheck is the entry check of a track's statements.
func NewEntryCheck(tasks *season.Tasks) (*EntryCheck, error) {
	if tasks == nil {
		return nil, errors.New("an entry check needs the statements")
	}
	rules, err := season.RulesNamed(tasks.Track)
	if err != nil {
		return nil, fmt.Errorf("statements /piste: %w", err)
	}
	return &EntryCheck{tasks: tasks, rules: rules}, nil
}

// Check reads a submission's bytes as the replay reads them
// (ParseSubmission) and refuses it where the replay would report it
// rejected at entry: the strict schema, the disclosures exactly for the
// cited proofs, unique triplets, the season, the track, a task of the
// statements, the verdict's vocabulary and the task's ceiling. On a
// refusal, EntryRefusal gives its JSON pointer and rule. file names the
// submission in the replay's messages; the refusal itself does not quote
// it.
func (c *EntryCheck) Check(file string, data []byte) (*Submission, error) {
	sub, err := ParseSubmission(file, data)
	return sub, rejectedAtEntry(c.tasks, c.rules, Parsed{Submission: sub, Err: err})
}

// EntryRefusal is the JSON pointer and the rule (in French, as the replay's
// report writes them) of a rejection at entry; ok is false for any other
// error.
func EntryRefusal(err error) (pointer, rule string, ok bool) {
	var e *entryError
	if !errors.As(err, &e) {
		return "", "", false
	}
	return e.Pointer, e.Rule, true
}

// rejectedAtEntry is the entry check of a submission whatever its task:
// one the statements do not hold is refused on its track when that is
// what differs, else on its task id; one they hold, by checkEntry.
func rejectedAtEntry(tasks *season.Tasks, rules *season.Rules, p Parsed) error {
	if p.Err != nil {
		return p.Err
	}
	t, ok := tasks.Task(p.Submission.TaskID)
	if !ok {
		return unknownTask(tasks, p.Submission)
	}
	return checkEntry(tasks, rules, t, p)
}

// unknownTask is why a submission whose task the statements do not hold is
// rejected at entry: another track's task is refused on its track, which
// is what to change.
func unknownTask(tasks *season.Tasks, sub *Submission) error {
	if sub.Track != tasks.Track {
		return entryErr("/track", "piste %q, attendue %q", sub.Track, tasks.Track)
	}
	return entryErr("/task_id", "pas une tâche des énoncés")
}

// checkEntry is what the season service refuses before recording a
// submission for the statements' task t: the schema, season, track and
// task, the verdict's vocabulary, the ceiling.
func checkEntry(tasks *season.Tasks, rules *season.Rules, t season.Task, p Parsed) error {
	if p.Err != nil {
		return p.Err
	}
	sub := p.Submission
	switch {
	case string(sub.Season) != tasks.Season:
		return entryErr("/season", "saison %s, attendue %s", sub.Season, tasks.Season)
	case sub.Track != tasks.Track:
		return entryErr("/track", "piste %q, attendue %q", sub.Track, tasks.Track)
	case !rules.ValidVerdict(sub.Verdict):
		return entryErr("/verdict", "%q n'est pas un verdict de la piste %s", sub.Verdict, tasks.Track)
	case len(sub.Assertions) > t.AssertionsMax:
		return entryErr("/assertions", "%d assertions, au-delà du plafond de %d pour %s", len(sub.Assertions), t.AssertionsMax, t.ID)
	}
	return nil
}
