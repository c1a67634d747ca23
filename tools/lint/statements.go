package lint

import (
	"regexp"
	"slices"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// checkTasks checks the statements like the corpus, by their track's
// checks.
func (l *Linter) checkTasks(tasks *season.Tasks) {
	if l.checks.Task == nil {
		return
	}
	for i, task := range tasks.Tasks {
		l.checks.Task(l, l.opts.TasksFile, Child("/taches", i), task)
	}
}

// CheckPublishedBefore checks that a statement's date falls on or after the
// date its rules were published: an agent is judged by rules that existed.
func (l *Linter) CheckPublishedBefore(file, at, name, date string) {
	published, ok := StringField(l.docs[l.opts.Track.Rules], "date_publication")
	if ok && dateShape(date) && dateShape(published) && date < published {
		l.Report(file, at, ruleRulesText, "%s %s is before %s was published (%s)", name, date, l.opts.Track.Rules, published)
	}
}

// citedPath is a resource path a question names, up to the punctuation that
// ends its sentence.
var citedPath = regexp.MustCompile(`/[a-z-]+(?:/[a-z-]+)?/[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]`)

// CheckQuestionCites checks that a statement's question names each
// reference the client supplied, and cites every path it names (by its
// track's rules, as the conformity task's entity, or as a reference): the
// prose and the statement's members say the same thing.
func (l *Linter) CheckQuestionCites(file, at string, task season.Task) {
	named, cited := map[string]bool{}, task.Cited()
	for _, p := range citedPath.FindAllString(task.Question, -1) {
		named[p] = true
		if corpus.IsReference(p) && !slices.Contains(cited, p) {
			l.Report(file, Child(at, "question"), RuleReferences, "the question names %s, which references does not list", p)
		}
	}
	for j, r := range task.References {
		if !named[r] {
			l.Report(file, Child(Child(at, "references"), j), RuleReferences, "%s is not named in the question", r)
		}
	}
}
