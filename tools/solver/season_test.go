package solver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/arkforge/proveit-corpus/tools/solver"
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// readSeason reads the conformity season's files from the repository root.
func readSeason(t *testing.T) (*season.Tasks, *season.Key, season.Fetcher) {
	t.Helper()
	return readTrackSeason(t, corpus.Conformity)
}

// readTrackSeason reads a track's statements, key and tree.
func readTrackSeason(t *testing.T, track *corpus.Track) (*season.Tasks, *season.Key, season.Fetcher) {
	t.Helper()
	tasks, err := season.ReadTasks(filepath.Join("../..", season.TasksFile(track)))
	require.NoError(t, err)
	require.Equal(t, track.Name, tasks.Track)
	key, err := season.ReadKey(filepath.Join("../..", season.KeyFile(track)))
	require.NoError(t, err)
	return tasks, key, solver.ServeTree(os.DirFS(filepath.Join("../../corpus", track.Name)))
}

// Each track's sealed key agrees with the solver and meets every rule of
// the track: solver.CheckKey reports verdicts, calls, composition, bounds, served
// values, probative fields, graph, own resources and common-list entries.
func TestSeasonKeyMeetsTheTrackRules(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			tasks, key, fetch := readTrackSeason(t, track)
			results, err := solver.SolveSeason(tasks, fetch)
			require.NoError(t, err)
			problems, err := solver.CheckKey(tasks, key, results, fetch)
			require.NoError(t, err)
			for _, p := range problems {
				t.Errorf("%s", p)
			}
		})
	}
}

// Task by task, the same guarantees stated directly, so that a failure names
// the task and the broken promise.
func TestSeasonTaskByTask(t *testing.T) {
	// Assertion bounds of spec §5.5 (docs/contract.md, section 5), which taches.json restates;
	// the purchasing statements publish their own, checked by solver.CheckKey.
	bounds := map[string][2]int{
		"conf-01": {2, 4}, "conf-02": {3, 6}, "conf-03": {2, 4}, "conf-04": {3, 6}, "conf-05": {4, 8},
		"conf-06": {4, 8}, "conf-07": {3, 6}, "conf-08": {4, 8}, "conf-09": {3, 6}, "conf-10": {3, 6},
	}
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) { taskByTask(t, track, bounds) })
	}
}

func taskByTask(t *testing.T, track *corpus.Track, bounds map[string][2]int) {
	tasks, key, fetch := readTrackSeason(t, track)
	require.Len(t, tasks.Tasks, 10)
	require.Len(t, key.Tasks, 10)
	for i, task := range tasks.Tasks {
		k := key.Tasks[i]
		t.Run(task.ID, func(t *testing.T) {
			require.Equal(t, task.ID, k.ID, "statements and key in the same order")
			if want, ok := bounds[task.ID]; ok {
				assert.Equal(t, want, [2]int{task.AssertionsMin, task.AssertionsMax}, "bounds of the specification's 5.5")
			}

			res, err := solver.Solve(task, fetch)
			require.NoError(t, err)
			assert.Equal(t, solver.Verdict(k.Verdict), res.Verdict, "verdict")
			assert.GreaterOrEqual(t, len(res.Calls), season.MinCalls, "calls %v", res.Calls)
			assert.LessOrEqual(t, len(res.Calls), season.MaxCalls, "calls %v", res.Calls)
			assert.Equal(t, track.Rules, res.Calls[0], "the rules are read first, as one call")
			assert.Len(t, uniq(res.Calls), len(res.Calls), "each path is fetched once")

			smallest, err := k.Founding.Smallest()
			require.NoError(t, err)
			limit := task.AssertionsMax - 2
			if k.Control {
				limit = task.AssertionsMin
			}
			assert.LessOrEqual(t, len(smallest), limit, "room under the ceiling: %v", smallest)
			derived, err := solver.Derive(task, fetch)
			require.NoError(t, err)
			assert.Equal(t, res.Verdict, derived.Verdict, "the full walk reaches the agent's verdict")
			graph, err := season.TaskGraph(task, fetch)
			require.NoError(t, err)
			for _, f := range k.Founding.Facts() {
				for _, form := range append([]season.Fact{f}, f.EquivalentForms...) {
					assert.Empty(t, solver.Served(form, fetch), "%s %s is served with exactly that value", form.Resource, form.Field)
					assert.True(t, season.Probative(form.Resource, form.Field), "%s %s is a probative pointer", form.Resource, form.Field)
					assert.True(t, graph.Contains(form.Resource), "%s is in the task's graph", form.Resource)
					if !graph.Own[form.Resource] {
						assert.True(t, graph.Concerns(form.Resource, form.Field), "%s %s is an entry concerning the task", form.Resource, form.Field)
					}
				}
				// What the key rests on, an agent following the rules reads.
				assert.Contains(t, derived.Calls, f.Resource, "the solver fetched %s", f.Resource)
			}

			// The solver's own facts obey the same rules as the key's.
			for _, f := range res.Facts {
				assert.True(t, season.Probative(f.Resource, f.Field), "solver fact %s", f)
				assert.True(t, graph.Contains(f.Resource), "solver fact %s", f)
				assert.Empty(t, solver.Served(f, fetch), "solver fact %s", f)
			}
		})
	}
}

// The composition of the key: 3 conforme, 4 non_conforme, 3
// indeterminable; every family; P5 on three tasks or more; one control task.
func TestSeasonComposition(t *testing.T) {
	_, key, _ := readSeason(t)
	verdicts := map[string]int{}
	families := map[string]int{}
	var controls []string
	for _, k := range key.Tasks {
		verdicts[k.Verdict]++
		for _, f := range k.Families {
			families[f]++
		}
		if k.Control {
			controls = append(controls, k.ID)
			assert.Empty(t, k.Families, "the control task carries no trap")
		} else {
			assert.NotEmpty(t, k.Families, "%s carries a trap", k.ID)
		}
	}
	assert.Equal(t, map[string]int{"conforme": 3, "non_conforme": 4, "indeterminable": 3}, verdicts)
	for _, f := range []string{"P1", "P2", "P3", "P4", "P5"} {
		assert.Positive(t, families[f], "family %s", f)
	}
	assert.GreaterOrEqual(t, families["P5"], 3)
	assert.Len(t, controls, 1)
}

// keyOf returns a task's key.
func keyOf(k *season.Key, id string) *season.KeyTask {
	for i := range k.Tasks {
		if k.Tasks[i].ID == id {
			return &k.Tasks[i]
		}
	}
	panic(id)
}

// factAt returns the formula's i-th fact, depth first, to edit in place.
func factAt(f *season.Formula, i int) *season.Fact {
	var facts []*season.Fact
	var walk func(f *season.Formula)
	walk = func(f *season.Formula) {
		if f.Fact != nil {
			facts = append(facts, f.Fact)
		}
		for j := range f.All {
			walk(&f.All[j])
		}
		for j := range f.Any {
			walk(&f.Any[j])
		}
	}
	walk(f)
	return facts[i]
}

// setFact replaces the formula's i-th fact by a triple with no forms.
func setFact(k *season.KeyTask, i int, f season.Fact) { *factAt(&k.Founding, i) = f }

func fact(resource, field, value string) season.Fact {
	return season.Fact{Resource: resource, Field: field, Value: json.RawMessage(value)}
}

// solver.CheckKey catches each way a key can break the track's rules.
func TestCheckKeyCatches(t *testing.T) {
	tests := []struct {
		name string
		edit func(k *season.Key, results []*solver.Result)
		want solver.Problem
	}{
		{"a verdict the solver does not reach", func(k *season.Key, _ []*solver.Result) {
			keyOf(k, "conf-05").Verdict = "non_conforme"
			keyOf(k, "conf-02").Verdict = "conforme"
		}, solver.Problem{"conf-05", solver.RuleVerdict, "the key says non_conforme, the solver conforme"}},
		{"a value the corpus does not serve", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-02"), 1, fact("/agrements/AGR-5120", "/date_fin_validite", `"2026-09-30"`))
		}, solver.Problem{"conf-02", solver.RuleServed, `fact 1 (/agrements/AGR-5120 /date_fin_validite): the key says "2026-09-30", the corpus serves "2026-09-29"`}},
		{"a value of the wrong JSON type", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-03"), 1, fact("/attestations/ATT-7702", "/existe", `"false"`))
		}, solver.Problem{"conf-03", solver.RuleServed, `fact 1 (/attestations/ATT-7702 /existe): the key says "false", the corpus serves false`}},
		{"an absent resource said to exist", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-10"), 1, fact("/avenants/AVN-3412", "/existe", `true`))
		}, solver.Problem{"conf-10", solver.RuleServed, `fact 1 (/avenants/AVN-3412 /existe): the key says true, the corpus serves false`}},
		{"a pointer the resource does not serve", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-01"), 1, fact("/agrements/AGR-4417", "/agrements/5", `"x"`))
		}, solver.Problem{"conf-01", solver.RuleServed, `fact 1 (/agrements/AGR-4417 /agrements/5): the resource serves no value at this pointer`}},
		{"a descriptive field", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-01"), 0, fact("/entites/ENT-1102", "/denomination", `"Bureau de change des Cordeliers"`))
		}, solver.Problem{"conf-01", solver.RuleProbative, `fact 0 (/entites/ENT-1102 /denomination): not a probative field of its collection`}},
		{"the whole document", func(k *season.Key, _ []*solver.Result) {
			factAt(&keyOf(k, "conf-01").Founding, 0).Field = ""
		}, solver.Problem{"conf-01", solver.RuleProbative, `fact 0 (/entites/ENT-1102 ): not a probative field of its collection`}},
		{"a page_suivante of a common list", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-04"), 3, fact("/listes/agrees/domiciliation", "/page_suivante", `"/listes/agrees/domiciliation-p2"`))
		}, solver.Problem{"conf-04", solver.RuleProbative, `fact 3 (/listes/agrees/domiciliation /page_suivante): not a probative field of its collection`}},
		{"the referentiel", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-01"), 1, fact("/referentiel", "/mesures_restrictives", `"/mesures-restrictives/MR-2026"`))
		}, solver.Problem{"conf-01", solver.RuleGraph, `fact 1 (/referentiel /mesures_restrictives): not in the task's graph`}},
		{"another entity's resource", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-01"), 1, fact("/agrements/AGR-5120", "/statut", `"actif"`))
		}, solver.Problem{"conf-01", solver.RuleGraph, `fact 1 (/agrements/AGR-5120 /statut): not in the task's graph`}},
		{"another activity's public list", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-01"), 1, fact("/listes/agrees/domiciliation", "/entrees/0/statut", `"actif"`))
		}, solver.Problem{"conf-01", solver.RuleGraph, `fact 1 (/listes/agrees/domiciliation /entrees/0/statut): not in the task's graph`}},
		{"a public-list entry of another entity", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-01"), 1, fact("/listes/agrees/change-manuel", "/entrees/1/statut", `"actif"`))
		}, solver.Problem{"conf-01", solver.RuleCommonList, `fact 1 (/listes/agrees/change-manuel /entrees/1/statut): a common list's entry that does not concern /entites/ENT-1102`}},
		{"a restrictive-measures entry no owner is named", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-06"), 3, fact("/mesures-restrictives/MR-2026", "/entrees/0/nom", `"Arnoux"`))
		}, solver.Problem{"conf-06", solver.RuleCommonList, `fact 3 (/mesures-restrictives/MR-2026 /entrees/0/nom): a common list's entry that does not concern /entites/ENT-6021`}},
		{"no room under the control task's minimum", func(k *season.Key, _ []*solver.Result) {
			kt := keyOf(k, "conf-01")
			kt.Founding = season.AllOf(kt.Founding, season.FactOf(fact("/agrements/AGR-4417", "/date_debut", `"2022-03-01"`)),
				season.FactOf(fact("/agrements/AGR-4417", "/activite", `"change-manuel"`)))
		}, solver.Problem{"conf-01", solver.RuleRoom, "the smallest set of facts that founds the verdict has 3 facts, want at most 2 (the control task's assertions_min 2)"}},
		{"a control alternative over the minimum", func(k *season.Key, _ []*solver.Result) {
			kt := keyOf(k, "conf-01")
			kt.Founding.Any = append(kt.Founding.Any, season.AllOf(season.FactOf(fact("/agrements/AGR-4417", "/date_debut", `"2022-03-01"`)),
				season.FactOf(fact("/agrements/AGR-4417", "/activite", `"change-manuel"`)), season.FactOf(fact("/agrements/AGR-4417", "/statut", `"actif"`))))
		}, solver.Problem{"conf-01", solver.RuleRoom, `the control task's alternative /agrements/AGR-4417 /date_debut = "2022-03-01", /agrements/AGR-4417 /activite = "change-manuel", /agrements/AGR-4417 /statut = "actif" takes 3 assertions, want at most its assertions_min 2`}},
		{"no room under the ceiling", func(k *season.Key, _ []*solver.Result) {
			kt := keyOf(k, "conf-02")
			for _, field := range []string{"/activite", "/statut", "/date_debut"} {
				v := map[string]string{"/activite": `"intermediation-credit"`, "/statut": `"actif"`, "/date_debut": `"2021-09-30"`}[field]
				kt.Founding.All = append(kt.Founding.All, season.FactOf(fact("/agrements/AGR-5120", field, v)))
			}
		}, solver.Problem{"conf-02", solver.RuleRoom, "the smallest set of facts that founds the verdict has 5 facts, want at most 4 (assertions_max 6 - 2)"}},
		{"a missing alternative", func(k *season.Key, _ []*solver.Result) {
			kt := keyOf(k, "conf-09")
			kt.Founding = kt.Founding.Any[0] // R2's only
		}, solver.Problem{"conf-09", solver.RuleAlternatives, `the formula lacks an alternative the rules allow: the case R4, by /entites/ENT-9012 /attestations = ["/attestations/ATT-8470","/attestations/ATT-8471"], /attestations/ATT-8470 /type = "assurance-rc-pro", /attestations/ATT-8471 /type = "regularite-fiscale"`}},
		{"a missing equivalent form", func(k *season.Key, _ []*solver.Result) {
			f := factAt(&keyOf(k, "conf-02").Founding, 0)
			f.EquivalentForms = f.EquivalentForms[:1] // the whole array, not the agrément's /entite
		}, solver.Problem{"conf-02", solver.RuleForms, `fact 0 (/entites/ENT-2231 /agrements/0): lacks the equivalent form /agrements/AGR-5120 /entite = "/entites/ENT-2231"`}},
		{"a guess as an alternative", func(k *season.Key, _ []*solver.Result) {
			kt := keyOf(k, "conf-02")
			kt.Founding = season.AnyOf(kt.Founding, season.FactOf(fact("/entites/ENT-2231", "/statut", `"active"`)))
		}, solver.Problem{"conf-02", solver.RuleDerivation, `the formula founds the verdict on /entites/ENT-2231 /statut = "active", which proves no case that decides it`}},
		{"a fact a conforme verdict does not rest on", func(k *season.Key, _ []*solver.Result) {
			setFact(keyOf(k, "conf-05"), 0, fact("/attestations/ATT-8150", "/date_fin_validite", `"2026-06-30"`))
		}, solver.Problem{"conf-05", solver.RuleDerivation, "fact 0 (/attestations/ATT-8150 /date_fin_validite): not a fact the conforme verdict rests on"}},
		{"too few facts on own resources", func(k *season.Key, _ []*solver.Result) {
			kt := keyOf(k, "conf-06")
			kt.Founding.All = kt.Founding.All[3:] // the list's entry only
		}, solver.Problem{"conf-06", solver.RuleOwn, "the smallest founding set, filled up to the minimum, has 1 assertions on the entity's own resources, want at least 2 (half the minimum 4, rounded up)"}},
		{"too few calls", func(_ *season.Key, results []*solver.Result) { results[1].Calls = results[1].Calls[:1] },
			solver.Problem{"conf-02", solver.RuleCalls, "answering takes 1 calls, want 2 to 12"}},
		{"too many calls", func(_ *season.Key, results []*solver.Result) {
			results[0].Calls = append(results[0].Calls, "/entites/ENT-1", "/entites/ENT-2", "/entites/ENT-3")
		}, solver.Problem{"conf-01", solver.RuleCalls, "answering takes 13 calls, want 2 to 12"}},
		{"the verdict balance", func(k *season.Key, _ []*solver.Result) { keyOf(k, "conf-09").Verdict = "indeterminable" },
			solver.Problem{"", solver.RuleComposition, "3 tasks expect non_conforme, want 4"}},
		{"a family missing", func(k *season.Key, _ []*solver.Result) { keyOf(k, "conf-04").Families = []string{"P1"} },
			solver.Problem{"", solver.RuleComposition, "no task carries the trap family P3"}},
		{"too few P5", func(k *season.Key, _ []*solver.Result) { keyOf(k, "conf-09").Families = []string{"P2"} },
			solver.Problem{"", solver.RuleComposition, "2 tasks carry P5, want at least 3"}},
		{"an unknown family", func(k *season.Key, _ []*solver.Result) { keyOf(k, "conf-02").Families = []string{"P2", "P6"} },
			solver.Problem{"conf-02", solver.RuleComposition, `unknown trap family "P6"`}},
		{"two control tasks", func(k *season.Key, _ []*solver.Result) {
			kt := keyOf(k, "conf-06")
			kt.Control, kt.Families = true, nil
		}, solver.Problem{"", solver.RuleComposition, "2 control tasks [conf-01 conf-06], want exactly one"}},
		{"a control task with a trap", func(k *season.Key, _ []*solver.Result) { keyOf(k, "conf-01").Families = []string{"P5"} },
			solver.Problem{"conf-01", solver.RuleComposition, "a control task carries the families [P5]"}},
		{"a trapless task that is not the control", func(k *season.Key, _ []*solver.Result) { keyOf(k, "conf-02").Families = nil },
			solver.Problem{"conf-02", solver.RuleComposition, "a task with no trap family that is not the control task"}},
		{"a task missing from the key", func(k *season.Key, _ []*solver.Result) { k.Tasks = k.Tasks[1:] },
			solver.Problem{"conf-01", solver.RuleComposition, "the key has no entry for the task"}},
		{"a task the statements lack", func(k *season.Key, _ []*solver.Result) {
			extra := k.Tasks[0]
			extra.ID = "conf-11"
			k.Tasks = append(k.Tasks, extra)
		}, solver.Problem{"conf-11", solver.RuleComposition, "the key has a task the statements do not"}},
	}
	tasks, _, fetch := readSeason(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, key, _ := readSeason(t)
			results, err := solver.SolveSeason(tasks, fetch)
			require.NoError(t, err)
			tt.edit(key, results)
			problems, err := solver.CheckKey(tasks, key, results, fetch)
			require.NoError(t, err)
			assert.Contains(t, problems, tt.want)
		})
	}
}

// solver.CheckKey catches each way a purchasing key can break its track's rules.
func TestCheckKeyCatchesPurchasing(t *testing.T) {
	tests := []struct {
		name string
		edit func(tasks *season.Tasks, k *season.Key, results []*solver.Result)
		want solver.Problem
	}{
		{"the expensive valid option as verdict", func(_ *season.Tasks, k *season.Key, _ []*solver.Result) {
			k.Tasks[0].Verdict = "/produits/ECR-2734"
		}, solver.Problem{"gen-01", solver.RuleVerdict, "the key says /produits/ECR-2734, the solver /produits/ECR-2701"}},
		{"a valid option where there is none", func(_ *season.Tasks, k *season.Key, _ []*solver.Result) {
			k.Tasks[1].Verdict = "/produits/IMP-4410"
		}, solver.Problem{"", solver.RuleComposition, "2 tasks expect aucune_option_valide, want at least 3"}},
		{"a verdict that is no product", func(_ *season.Tasks, k *season.Key, _ []*solver.Result) {
			k.Tasks[0].Verdict = "/fournisseurs/FRN-101"
		}, solver.Problem{"", solver.RuleComposition, `1 tasks expect the unknown verdict "/fournisseurs/FRN-101"`}},
		{"an amount the corpus spells otherwise", func(_ *season.Tasks, k *season.Key, _ []*solver.Result) {
			setFact(&k.Tasks[0], 0, fact("/tarifs/TAR-ECR-2701", "/prix_unitaire_ttc", `"289.9"`))
		}, solver.Problem{"gen-01", solver.RuleServed, `fact 0 (/tarifs/TAR-ECR-2701 /prix_unitaire_ttc): the key says "289.9", the corpus serves "289.90"`}},
		{"a descriptive field", func(_ *season.Tasks, k *season.Key, _ []*solver.Result) {
			setFact(&k.Tasks[0], 0, fact("/tarifs/TAR-ECR-2701", "/mention", `"x"`))
		}, solver.Problem{"gen-01", solver.RuleProbative, `fact 0 (/tarifs/TAR-ECR-2701 /mention): not a probative field of its collection`}},
		{"another category's product", func(_ *season.Tasks, k *season.Key, _ []*solver.Result) {
			setFact(&k.Tasks[0], 0, fact("/tarifs/TAR-IMP-4410", "/prix_unitaire_ttc", `"612.00"`))
		}, solver.Problem{"gen-01", solver.RuleGraph, `fact 0 (/tarifs/TAR-IMP-4410 /prix_unitaire_ttc): not in the task's graph`}},
		{"another category's catalogue", func(_ *season.Tasks, k *season.Key, _ []*solver.Result) {
			setFact(&k.Tasks[0], 0, fact("/catalogues/imprimantes", "/entrees/0/etat_affiche", `"en_stock"`))
		}, solver.Problem{"gen-01", solver.RuleGraph, `fact 0 (/catalogues/imprimantes /entrees/0/etat_affiche): not in the task's graph`}},
		{"too few facts on own resources", func(_ *season.Tasks, k *season.Key, _ []*solver.Result) {
			// gen-04: every candidate excluded by the catalogue alone.
			k.Tasks[3].Founding = season.AllOf(
				season.FactOf(fact("/catalogues/videoprojecteurs", "/entrees/0/prix_affiche_ttc", `"2190.00"`)),
				season.FactOf(fact("/catalogues/videoprojecteurs", "/entrees/1/etat_affiche", `"en_stock"`)),
				season.FactOf(fact("/catalogues/videoprojecteurs", "/entrees/2/produit", `"/produits/VPR-3300"`)))
		}, solver.Problem{"gen-04", solver.RuleOwn, "the smallest founding set, filled up to the minimum, has 0 assertions on the candidates' own resources, want at least 2 (half the minimum 3, rounded up)"}},
		{"a maximum that is not twice the minimum", func(tasks *season.Tasks, _ *season.Key, _ []*solver.Result) {
			tasks.Tasks[0].AssertionsMax = 5
		}, solver.Problem{"gen-01", solver.RuleBounds, "bounds 4..5, want a minimum of 2 to 4 and a maximum twice it"}},
		{"a minimum of one", func(tasks *season.Tasks, _ *season.Key, _ []*solver.Result) {
			tasks.Tasks[6].AssertionsMin, tasks.Tasks[6].AssertionsMax = 1, 2
		}, solver.Problem{"gen-07", solver.RuleBounds, "bounds 1..2, want a minimum of 2 to 4 and a maximum twice it"}},
		{"too many calls", func(_ *season.Tasks, _ *season.Key, results []*solver.Result) {
			results[0].Calls = append(results[0].Calls, "/produits/X")
		}, solver.Problem{"gen-01", solver.RuleCalls, "answering takes 13 calls, want 2 to 12"}},
		{"a second control", func(_ *season.Tasks, k *season.Key, _ []*solver.Result) {
			k.Tasks[5].Control, k.Tasks[5].Families = true, nil
		}, solver.Problem{"", solver.RuleComposition, "2 control tasks [gen-01 gen-06], want exactly one"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks, key, fetch := readTrackSeason(t, corpus.Purchasing)
			results, err := solver.SolveSeason(tasks, fetch)
			require.NoError(t, err)
			tt.edit(tasks, key, results)
			problems, err := solver.CheckKey(tasks, key, results, fetch)
			require.NoError(t, err)
			assert.Contains(t, problems, tt.want)
		})
	}
}

// A key for aucune_option_valide that leaves a candidate out founds the
// verdict on facts that exclude only the others: a guess about the rest.
func TestCheckKeyCatchesACandidateLeftOut(t *testing.T) {
	tasks, key, fetch := readTrackSeason(t, corpus.Purchasing)
	results, err := solver.SolveSeason(tasks, fetch)
	require.NoError(t, err)
	gen02 := keyOf(key, "gen-02")
	require.Len(t, gen02.Founding.All, 5)
	left := gen02.Founding.All[3] // IMP-1810, which the catalogue shows rupture
	require.Contains(t, fmt.Sprint(left.Facts()), "/produits/IMP-1810")
	gen02.Founding.All = slices.Delete(gen02.Founding.All, 3, 4)
	problems, err := solver.CheckKey(tasks, key, results, fetch)
	require.NoError(t, err)
	require.NotEmpty(t, problems)
	for _, p := range problems {
		assert.Equal(t, "gen-02", p.Task)
		assert.Equal(t, solver.RuleDerivation, p.Rule)
		assert.Contains(t, p.Message, "which proves no case that decides it")
	}
}

// solver.ServeTree answers like the server: a file's bytes, the absent body for a
// reference with no file, nothing outside the corpus.
func TestServeTree(t *testing.T) {
	const treeDir = "../../corpus/conformite"
	fetch := solver.ServeTree(os.DirFS(treeDir))
	data, err := os.ReadFile(treeDir + "/agrements/AGR-4417.json")
	require.NoError(t, err)
	got, err := fetch("/agrements/AGR-4417")
	require.NoError(t, err)
	assert.Equal(t, data, got)

	data, err = os.ReadFile("../../corpus/generique/regles-achat.json")
	require.NoError(t, err)
	got, err = solver.ServeTree(os.DirFS("../../corpus/generique"))("/regles-achat")
	require.NoError(t, err)
	assert.Equal(t, data, got)

	got, err = fetch("/avenants/AVN-3412")
	require.NoError(t, err)
	hash, err := anchor.ResponseHash(got)
	require.NoError(t, err)
	assert.NotEmpty(t, hash)
	assert.Contains(t, string(got), `"existe": false`)

	for _, path := range []string{"/_systeme/404", "/agrements", "/inconnu/X-1", "/agrements/AGR 1"} {
		_, err := fetch(path)
		assert.Error(t, err, path)
	}
}

func uniq(paths []string) []string {
	out := slices.Clone(paths)
	slices.Sort(out)
	return slices.Compact(out)
}

// An equivalent form of a fact meets the rules the fact does: a form served
// with another value, or outside the task's graph, is a problem of the key.
func TestKeyEquivalentForms(t *testing.T) {
	tasks, key, fetch := readSeason(t)
	results, err := solver.SolveSeason(tasks, fetch)
	require.NoError(t, err)
	problems, err := solver.CheckKey(tasks, key, results, fetch)
	require.NoError(t, err)
	require.Empty(t, problems)

	f := factAt(&keyOf(key, "conf-03").Founding, 0) // the entity lists the absent attestation
	require.Equal(t, "/attestations/1", f.Field)
	f.EquivalentForms = append(f.EquivalentForms,
		fact(f.Resource, "/attestations/0", `"/attestations/ATT-7702"`),
		fact("/entites/ENT-1102", "/statut", `"active"`))
	problems, err = solver.CheckKey(tasks, key, results, fetch)
	require.NoError(t, err)
	var rules []string
	for _, p := range problems {
		assert.Contains(t, p.Message, "equivalent form")
		rules = append(rules, p.Rule)
	}
	assert.ElementsMatch(t, []string{solver.RuleServed, solver.RuleGraph}, rules, "%v", problems)
}

// Forms finds every other probative pointer that states a fact: the whole
// array of an element, the element of an array of one, the link back.
func TestForms(t *testing.T) {
	tests := []struct {
		track           *corpus.Track
		task            string
		resource, field string
		want            []string
	}{
		{corpus.Conformity, "conf-02", "/entites/ENT-2231", "/agrements/0",
			[]string{`/entites/ENT-2231 /agrements = ["/agrements/AGR-5120"]`, `/agrements/AGR-5120 /entite = "/entites/ENT-2231"`}},
		{corpus.Conformity, "conf-02", "/agrements/AGR-5120", "/entite",
			[]string{`/entites/ENT-2231 /agrements/0 = "/agrements/AGR-5120"`, `/entites/ENT-2231 /agrements = ["/agrements/AGR-5120"]`}},
		// An absent attestation states nothing back; the whole array of two
		// is a form of its element, not the other way round.
		{corpus.Conformity, "conf-03", "/entites/ENT-3378", "/attestations/1",
			[]string{`/entites/ENT-3378 /attestations = ["/attestations/ATT-8120","/attestations/ATT-7702"]`}},
		{corpus.Conformity, "conf-03", "/entites/ENT-3378", "/attestations", nil},
		{corpus.Conformity, "conf-07", "/attestations/ATT-8402", "/avenants/0",
			[]string{`/attestations/ATT-8402 /avenants = ["/avenants/AVN-3390"]`, `/avenants/AVN-3390 /attestation = "/attestations/ATT-8402"`}},
		{corpus.Conformity, "conf-02", "/agrements/AGR-5120", "/date_fin_validite", nil},
		{corpus.Purchasing, "gen-05", "/livraisons/LIV-107-ANX", "/zones_exclues/0", []string{`/livraisons/LIV-107-ANX /zones_exclues = ["corse"]`}},
		{corpus.Purchasing, "gen-05", "/produits/OND-2000", "/tarif", []string{`/tarifs/TAR-OND-2000 /produit = "/produits/OND-2000"`}},
		{corpus.Purchasing, "gen-05", "/fournisseurs/FRN-110", "/conditions_livraison", []string{`/livraisons/LIV-110 /fournisseur = "/fournisseurs/FRN-110"`}},
	}
	for _, tt := range tests {
		t.Run(tt.task+tt.resource+tt.field, func(t *testing.T) {
			tasks, _, fetch := readTrackSeason(t, tt.track)
			task, ok := tasks.Task(tt.task)
			require.True(t, ok)
			g, err := season.TaskGraph(task, fetch)
			require.NoError(t, err)
			v, ok := pyjson.Lookup(g.Body(tt.resource), tt.field)
			require.True(t, ok)
			var got []string
			for _, f := range solver.Forms(g, season.Fact{Resource: tt.resource, Field: tt.field, Value: pyjson.Canonical(v)}) {
				got = append(got, f.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// A careful agent is founded on every task of both tracks: whatever case
// decides the verdict it proves (every alternative the derivation finds),
// in whatever form (each fact in each of its forms), and with the design's
// facts for a verdict no case decides alone. A guesser is not: nothing
// proved, every fact the verdict does not rest on, or an alternative
// short of one fact.
func TestKeyFoundsCarefulAgentsNotGuessers(t *testing.T) {
	for _, track := range corpus.Tracks {
		tasks, key, fetch := readTrackSeason(t, track)
		for _, task := range tasks.Tasks {
			t.Run(task.ID, func(t *testing.T) {
				k := keyOf(key, task.ID)
				derived, err := solver.Derive(task, fetch)
				require.NoError(t, err)
				graph, err := season.TaskGraph(task, fetch)
				require.NoError(t, err)
				cases, all, err := solver.Decided(task.Rules(), derived)
				require.NoError(t, err)
				var careful [][]season.Fact // the proofs a careful agent may carry
				if len(cases) == 0 {
					careful = [][]season.Fact{basisFacts(t, k.Founding)}
				}
				for i, c := range cases {
					for _, alt := range alternativesOf(t, c.Basis) {
						if all {
							for j, other := range cases {
								if j != i {
									alt = append(alt, alternativesOf(t, other.Basis)[0]...)
								}
							}
						}
						careful = append(careful, alt)
					}
				}
				require.NotEmpty(t, careful)
				var members []season.Formula
				for _, c := range cases {
					members = append(members, c.Basis)
				}
				derivedFormula := solver.WithForms(season.AnyOf(members...), graph)
				switch {
				case len(cases) == 0:
					derivedFormula = k.Founding
				case all:
					derivedFormula = solver.WithForms(season.AllOf(members...), graph)
				}
				for _, proof := range careful {
					assert.True(t, k.Founding.Holds(carry(proof)), "the proof %v founds the verdict", proof)
					for i, f := range proof {
						for _, form := range solver.Forms(graph, f) {
							other := slices.Clone(proof)
							other[i] = form
							assert.True(t, k.Founding.Holds(carry(other)), "%s stands for %s", form, f)
						}
					}
					// Short of one fact, the proof founds the verdict exactly
					// when what is left still proves a case (a case may
					// contain another, a fact may serve two candidates).
					for i := range proof {
						short := carry(slices.Delete(slices.Clone(proof), i, i+1))
						assert.Equal(t, derivedFormula.Holds(short), k.Founding.Holds(short), "the proof %v without %s", proof, proof[i])
					}
				}
				assert.False(t, k.Founding.Holds(season.Carried{}), "nothing proved")
				inFormula := season.Carried{}
				for _, f := range k.Founding.Facts() {
					inFormula.AddFact(f)
					for _, form := range f.EquivalentForms {
						inFormula.AddFact(form)
					}
				}
				var unrelated []season.Fact
				for _, f := range derived.Facts {
					if !inFormula.Has(f) {
						unrelated = append(unrelated, f)
					}
				}
				assert.False(t, k.Founding.Holds(carry(unrelated)), "the facts the key does not found on: %v", unrelated)
			})
		}
	}
}

// alternativesOf expands a basis into its alternatives.
func alternativesOf(t *testing.T, b season.Formula) [][]season.Fact {
	t.Helper()
	alts, err := solver.WithForms(b, &season.Graph{}).Alternatives()
	require.NoError(t, err)
	out := make([][]season.Fact, len(alts))
	for i, alt := range alts {
		for _, f := range alt {
			out[i] = append(out[i], solverFact(t, f))
		}
	}
	return out
}

// basisFacts lists a formula's facts, without their forms, as the solver
// writes them.
func basisFacts(t *testing.T, f season.Formula) []season.Fact {
	var out []season.Fact
	for _, fact := range f.Facts() {
		out = append(out, solverFact(t, fact))
	}
	return out
}

func solverFact(t *testing.T, f season.Fact) season.Fact {
	t.Helper()
	return season.Fact{Resource: f.Resource, Field: f.Field, Value: f.Value}
}

func carry(facts []season.Fact) season.Carried {
	c := season.Carried{}
	for _, f := range facts {
		c.AddFact(f)
	}
	return c
}
