package lint

import (
	"github.com/arkforge/proveit-corpus/corpus"
)

// checkLinks checks, by the track's rules, that two resources naming each
// other agree: a solver following links one way must reach what a solver
// following them the other way reaches.
func (l *Linter) checkLinks() {
	if l.checks.Links == nil {
		return
	}
	for _, path := range l.Paths() {
		l.checks.Links(l, path, corpus.CollectionOf(path), l.docs[path])
	}
}
