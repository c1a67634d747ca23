package index

import (
	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// withClaims gives each assertion of a report's view what the participant
// claimed (resource, field, value), from its submission, and, for a value
// that does not match, the value the corpus serves there: the replay's
// JSON report names neither, and a cause alone is not specific enough to
// contest (spec §7.5).
func withClaims(out *replayed, report *score.Report, subs []score.Parsed) {
	byTask := map[string]*score.Submission{}
	for _, p := range subs {
		if p.Submission != nil && p.Err == nil {
			byTask[p.Submission.TaskID] = p.Submission
		}
	}
	var serve season.Fetcher
	if t, err := corpus.TrackNamed(report.Track); err == nil {
		// The tree the replay compared with: the one compiled in, which
		// the corpus serves byte for byte.
		serve = solver.ServeTree(t.Embedded())
	}
	bodies := map[string]pyjson.Value{}
	for i := range out.tasks {
		sub := byTask[out.tasks[i].ID]
		if sub == nil {
			continue
		}
		claims := make(map[string]*season.Fact, len(sub.Assertions))
		for k := range sub.Assertions {
			claims[sub.Assertions[k].ID] = &sub.Assertions[k].Claim
		}
		for j := range out.tasks[i].Assertions {
			a := &out.tasks[i].Assertions[j]
			a.Claim = claims[a.ID]
			if a.Claim == nil || a.Cause != string(score.ValueMismatch) || serve == nil {
				continue
			}
			a.Served = servedValue(serve, bodies, a.Claim.Resource, a.Claim.Field)
		}
	}
}

// servedValue is the value the corpus serves at a resource's field, as a
// page shows it, or says the field is absent; bodies keeps each resource
// read, parsed.
func servedValue(serve season.Fetcher, bodies map[string]pyjson.Value, resource, field string) string {
	body, ok := bodies[resource]
	if !ok {
		data, err := serve(resource)
		if err == nil {
			body, err = pyjson.Parse(data)
		}
		if err != nil {
			body = nil
		}
		bodies[resource] = body
	}
	if body == nil {
		return ""
	}
	v, found := pyjson.Lookup(body, field)
	if !found {
		return "champ absent de la ressource servie"
	}
	return string(pyjson.AppendCompact(nil, v))
}
