package solver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// readSeason reads the conformity season's files from the repository root.
func readSeason(t *testing.T) (*season.Tasks, *season.Key, Fetcher) {
	t.Helper()
	return readTrackSeason(t, corpus.Conformite)
}

// readTrackSeason reads a track's statements, key and tree.
func readTrackSeason(t *testing.T, track *corpus.Track) (*season.Tasks, *season.Key, Fetcher) {
	t.Helper()
	tasks, err := season.ReadTasks(filepath.Join("../..", season.TasksFile(track)))
	require.NoError(t, err)
	require.Equal(t, track.Name, tasks.Piste)
	key, err := season.ReadKey(filepath.Join("../..", season.KeyFile(track)))
	require.NoError(t, err)
	return tasks, key, ServeTree(os.DirFS(filepath.Join("../../corpus", track.Name)))
}

// Each track's sealed key agrees with the solver and meets every rule of
// the track: CheckKey reports verdicts, calls, composition, bounds, served
// values, probative fields, graph, own resources and common-list entries.
func TestSeasonKeyMeetsTheTrackRules(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			tasks, key, fetch := readTrackSeason(t, track)
			results, err := SolveSeason(tasks, fetch)
			require.NoError(t, err)
			problems, err := CheckKey(tasks, key, results, fetch)
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
	// Assertion bounds of the specification's 5.5, which taches.json restates;
	// the purchasing statements publish their own, checked by CheckKey.
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
	require.Len(t, tasks.Taches, 10)
	require.Len(t, key.Taches, 10)
	for i, task := range tasks.Taches {
		k := key.Taches[i]
		t.Run(task.ID, func(t *testing.T) {
			require.Equal(t, task.ID, k.ID, "statements and key in the same order")
			if want, ok := bounds[task.ID]; ok {
				assert.Equal(t, want, [2]int{task.AssertionsMin, task.AssertionsMax}, "bounds of the specification's 5.5")
			}

			res, err := Solve(task, fetch)
			require.NoError(t, err)
			assert.Equal(t, Verdict(k.Verdict), res.Verdict, "verdict")
			assert.GreaterOrEqual(t, len(res.Calls), MinCalls, "calls %v", res.Calls)
			assert.LessOrEqual(t, len(res.Calls), MaxCalls, "calls %v", res.Calls)
			assert.Equal(t, track.Rules, res.Calls[0], "the rules are read first, as one call")
			assert.Len(t, uniq(res.Calls), len(res.Calls), "each path is fetched once")

			assert.GreaterOrEqual(t, len(k.Faits), task.AssertionsMin, "facts")
			assert.LessOrEqual(t, len(k.Faits), task.AssertionsMax, "facts")
			graph, err := TaskGraph(task, fetch)
			require.NoError(t, err)
			own := 0
			for _, f := range k.Faits {
				assert.Empty(t, served(f, fetch), "%s %s is served with exactly that value", f.Resource, f.Field)
				assert.True(t, Probative(f.Resource, f.Field), "%s %s is a probative pointer", f.Resource, f.Field)
				assert.True(t, graph.Contains(f.Resource), "%s is in the task's graph", f.Resource)
				if graph.Own[f.Resource] {
					own++
				} else {
					assert.True(t, graph.Concerns(f.Resource, f.Field), "%s %s is an entry concerning the task", f.Resource, f.Field)
				}
				// What the key rests on, an agent following the rules reads.
				assert.Contains(t, res.Calls, f.Resource, "the solver fetched %s", f.Resource)
			}
			assert.GreaterOrEqual(t, own, (task.AssertionsMin+1)/2, "facts on own resources")

			// The solver's own facts obey the same rules as the key's.
			for _, f := range res.Facts {
				assert.True(t, Probative(f.Resource, f.Field), "solver fact %s", f)
				assert.True(t, graph.Contains(f.Resource), "solver fact %s", f)
				assert.Empty(t, served(season.Fact{Resource: f.Resource, Field: f.Field, Value: pyjson.Canonical(f.Value)}, fetch), "solver fact %s", f)
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
	for _, k := range key.Taches {
		verdicts[k.Verdict]++
		for _, f := range k.Familles {
			families[f]++
		}
		if k.Controle {
			controls = append(controls, k.ID)
			assert.Empty(t, k.Familles, "the control task carries no trap")
		} else {
			assert.NotEmpty(t, k.Familles, "%s carries a trap", k.ID)
		}
	}
	assert.Equal(t, map[string]int{"conforme": 3, "non_conforme": 4, "indeterminable": 3}, verdicts)
	for _, f := range Families {
		assert.Positive(t, families[f], "family %s", f)
	}
	assert.GreaterOrEqual(t, families["P5"], MinP5)
	assert.Len(t, controls, 1)
}

// CheckKey catches each way a key can break the track's rules.
func TestCheckKeyCatches(t *testing.T) {
	fact := func(resource, field, value string) season.Fact {
		return season.Fact{Resource: resource, Field: field, Value: json.RawMessage(value)}
	}
	keyOf := func(k *season.Key, id string) *season.KeyTask {
		for i := range k.Taches {
			if k.Taches[i].ID == id {
				return &k.Taches[i]
			}
		}
		panic(id)
	}
	tests := []struct {
		name string
		edit func(k *season.Key, results []*Result)
		want Problem
	}{
		{"a verdict the solver does not reach", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-05").Verdict = "non_conforme"
			keyOf(k, "conf-02").Verdict = "conforme"
		}, Problem{"conf-05", RuleVerdict, "the key says non_conforme, the solver conforme"}},
		{"a value the corpus does not serve", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-02").Faits[3] = fact("/agrements/AGR-5120", "/date_fin_validite", `"2026-09-30"`)
		}, Problem{"conf-02", RuleServed, `fact 3 (/agrements/AGR-5120 /date_fin_validite): the key says "2026-09-30", the corpus serves "2026-09-29"`}},
		{"a value of the wrong JSON type", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-03").Faits[1] = fact("/attestations/ATT-7702", "/existe", `"false"`)
		}, Problem{"conf-03", RuleServed, `fact 1 (/attestations/ATT-7702 /existe): the key says "false", the corpus serves false`}},
		{"an absent resource said to exist", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-10").Faits[3] = fact("/avenants/AVN-3412", "/existe", `true`)
		}, Problem{"conf-10", RuleServed, `fact 3 (/avenants/AVN-3412 /existe): the key says true, the corpus serves false`}},
		{"a pointer the resource does not serve", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-01").Faits[1] = fact("/agrements/AGR-4417", "/agrements/5", `"x"`)
		}, Problem{"conf-01", RuleServed, `fact 1 (/agrements/AGR-4417 /agrements/5): the resource serves no value at this pointer`}},
		{"a descriptive field", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-01").Faits[0] = fact("/entites/ENT-1102", "/denomination", `"Bureau de change des Cordeliers"`)
		}, Problem{"conf-01", RuleProbative, `fact 0 (/entites/ENT-1102 /denomination): not a probative field of its collection`}},
		{"the whole document", func(k *season.Key, _ []*Result) {
			f := &keyOf(k, "conf-01").Faits[0]
			f.Field = ""
		}, Problem{"conf-01", RuleProbative, `fact 0 (/entites/ENT-1102 ): not a probative field of its collection`}},
		{"a page_suivante of a common list", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-04").Faits[3] = fact("/listes/agrees/domiciliation", "/page_suivante", `"/listes/agrees/domiciliation-p2"`)
		}, Problem{"conf-04", RuleProbative, `fact 3 (/listes/agrees/domiciliation /page_suivante): not a probative field of its collection`}},
		{"the referentiel", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-01").Faits[3] = fact("/referentiel", "/mesures_restrictives", `"/mesures-restrictives/MR-2026"`)
		}, Problem{"conf-01", RuleGraph, `fact 3 (/referentiel /mesures_restrictives): not in the task's graph`}},
		{"another entity's resource", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-01").Faits[1] = fact("/agrements/AGR-5120", "/statut", `"actif"`)
		}, Problem{"conf-01", RuleGraph, `fact 1 (/agrements/AGR-5120 /statut): not in the task's graph`}},
		{"another activity's public list", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-01").Faits[3] = fact("/listes/agrees/domiciliation", "/entrees/0/statut", `"actif"`)
		}, Problem{"conf-01", RuleGraph, `fact 3 (/listes/agrees/domiciliation /entrees/0/statut): not in the task's graph`}},
		{"a public-list entry of another entity", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-01").Faits[3] = fact("/listes/agrees/change-manuel", "/entrees/1/statut", `"actif"`)
		}, Problem{"conf-01", RuleCommonList, `fact 3 (/listes/agrees/change-manuel /entrees/1/statut): a common list's entry that does not concern /entites/ENT-1102`}},
		{"a restrictive-measures entry no owner is named", func(k *season.Key, _ []*Result) {
			keyOf(k, "conf-06").Faits[4] = fact("/mesures-restrictives/MR-2026", "/entrees/0/nom", `"Arnoux"`)
		}, Problem{"conf-06", RuleCommonList, `fact 4 (/mesures-restrictives/MR-2026 /entrees/0/nom): a common list's entry that does not concern /entites/ENT-6021`}},
		{"too many facts", func(k *season.Key, _ []*Result) {
			kt := keyOf(k, "conf-01")
			kt.Faits = append(kt.Faits, fact("/agrements/AGR-4417", "/date_debut", `"2022-03-01"`))
		}, Problem{"conf-01", RuleBounds, "5 facts, want 2 to 4"}},
		{"too few facts", func(k *season.Key, _ []*Result) {
			kt := keyOf(k, "conf-02")
			kt.Faits = kt.Faits[:2]
		}, Problem{"conf-02", RuleBounds, "2 facts, want 3 to 6"}},
		{"too few facts on own resources", func(k *season.Key, _ []*Result) {
			kt := keyOf(k, "conf-06")
			kt.Faits = append(slices.Clone(kt.Faits[4:]), kt.Faits[1])
		}, Problem{"conf-06", RuleOwn, "1 facts on the entity's own resources, want at least 2 (half the minimum 4, rounded up)"}},
		{"too few calls", func(_ *season.Key, results []*Result) { results[1].Calls = results[1].Calls[:1] },
			Problem{"conf-02", RuleCalls, "answering takes 1 calls, want 2 to 12"}},
		{"too many calls", func(_ *season.Key, results []*Result) {
			results[0].Calls = append(results[0].Calls, "/entites/ENT-1", "/entites/ENT-2", "/entites/ENT-3")
		}, Problem{"conf-01", RuleCalls, "answering takes 13 calls, want 2 to 12"}},
		{"the verdict balance", func(k *season.Key, _ []*Result) { keyOf(k, "conf-09").Verdict = "indeterminable" },
			Problem{"", RuleComposition, "3 tasks expect non_conforme, want 4"}},
		{"a family missing", func(k *season.Key, _ []*Result) { keyOf(k, "conf-04").Familles = []string{"P1"} },
			Problem{"", RuleComposition, "no task carries the trap family P3"}},
		{"too few P5", func(k *season.Key, _ []*Result) { keyOf(k, "conf-09").Familles = []string{"P2"} },
			Problem{"", RuleComposition, "2 tasks carry P5, want at least 3"}},
		{"an unknown family", func(k *season.Key, _ []*Result) { keyOf(k, "conf-02").Familles = []string{"P2", "P6"} },
			Problem{"conf-02", RuleComposition, `unknown trap family "P6"`}},
		{"two control tasks", func(k *season.Key, _ []*Result) {
			kt := keyOf(k, "conf-06")
			kt.Controle, kt.Familles = true, nil
		}, Problem{"", RuleComposition, "2 control tasks [conf-01 conf-06], want exactly one"}},
		{"a control task with a trap", func(k *season.Key, _ []*Result) { keyOf(k, "conf-01").Familles = []string{"P5"} },
			Problem{"conf-01", RuleComposition, "a control task carries the families [P5]"}},
		{"a trapless task that is not the control", func(k *season.Key, _ []*Result) { keyOf(k, "conf-02").Familles = nil },
			Problem{"conf-02", RuleComposition, "a task with no trap family that is not the control task"}},
		{"a task missing from the key", func(k *season.Key, _ []*Result) { k.Taches = k.Taches[1:] },
			Problem{"conf-01", RuleComposition, "the key has no entry for the task"}},
		{"a task the statements lack", func(k *season.Key, _ []*Result) {
			extra := k.Taches[0]
			extra.ID = "conf-11"
			k.Taches = append(k.Taches, extra)
		}, Problem{"conf-11", RuleComposition, "the key has a task the statements do not"}},
	}
	tasks, _, fetch := readSeason(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, key, _ := readSeason(t)
			results, err := SolveSeason(tasks, fetch)
			require.NoError(t, err)
			tt.edit(key, results)
			problems, err := CheckKey(tasks, key, results, fetch)
			require.NoError(t, err)
			assert.Contains(t, problems, tt.want)
		})
	}
}

// CheckKey catches each way a purchasing key can break its track's rules.
func TestCheckKeyCatchesPurchasing(t *testing.T) {
	fact := func(resource, field, value string) season.Fact {
		return season.Fact{Resource: resource, Field: field, Value: json.RawMessage(value)}
	}
	tests := []struct {
		name string
		edit func(tasks *season.Tasks, k *season.Key, results []*Result)
		want Problem
	}{
		{"the expensive valid option as verdict", func(_ *season.Tasks, k *season.Key, _ []*Result) {
			k.Taches[0].Verdict = "/produits/ECR-2734"
		}, Problem{"gen-01", RuleVerdict, "the key says /produits/ECR-2734, the solver /produits/ECR-2701"}},
		{"a valid option where there is none", func(_ *season.Tasks, k *season.Key, _ []*Result) {
			k.Taches[1].Verdict = "/produits/IMP-4410"
		}, Problem{"", RuleComposition, "2 tasks expect aucune_option_valide, want at least 3"}},
		{"a verdict that is no product", func(_ *season.Tasks, k *season.Key, _ []*Result) {
			k.Taches[0].Verdict = "/fournisseurs/FRN-101"
		}, Problem{"", RuleComposition, `1 tasks expect the unknown verdict "/fournisseurs/FRN-101"`}},
		{"an amount the corpus spells otherwise", func(_ *season.Tasks, k *season.Key, _ []*Result) {
			k.Taches[0].Faits[0] = fact("/tarifs/TAR-ECR-2701", "/prix_unitaire_ttc", `"289.9"`)
		}, Problem{"gen-01", RuleServed, `fact 0 (/tarifs/TAR-ECR-2701 /prix_unitaire_ttc): the key says "289.9", the corpus serves "289.90"`}},
		{"a descriptive field", func(_ *season.Tasks, k *season.Key, _ []*Result) {
			k.Taches[0].Faits[0] = fact("/tarifs/TAR-ECR-2701", "/mention", `"x"`)
		}, Problem{"gen-01", RuleProbative, `fact 0 (/tarifs/TAR-ECR-2701 /mention): not a probative field of its collection`}},
		{"another category's product", func(_ *season.Tasks, k *season.Key, _ []*Result) {
			k.Taches[0].Faits[0] = fact("/tarifs/TAR-IMP-4410", "/prix_unitaire_ttc", `"612.00"`)
		}, Problem{"gen-01", RuleGraph, `fact 0 (/tarifs/TAR-IMP-4410 /prix_unitaire_ttc): not in the task's graph`}},
		{"another category's catalogue", func(_ *season.Tasks, k *season.Key, _ []*Result) {
			k.Taches[0].Faits[0] = fact("/catalogues/imprimantes", "/entrees/0/etat_affiche", `"en_stock"`)
		}, Problem{"gen-01", RuleGraph, `fact 0 (/catalogues/imprimantes /entrees/0/etat_affiche): not in the task's graph`}},
		{"too few facts on own resources", func(_ *season.Tasks, k *season.Key, _ []*Result) {
			k.Taches[3].Faits = []season.Fact{k.Taches[3].Faits[0], k.Taches[3].Faits[0], k.Taches[3].Faits[1]}
		}, Problem{"gen-04", RuleOwn, "1 facts on the candidates' own resources, want at least 2 (half the minimum 3, rounded up)"}},
		{"a maximum that is not twice the minimum", func(tasks *season.Tasks, _ *season.Key, _ []*Result) {
			tasks.Taches[0].AssertionsMax = 5
		}, Problem{"gen-01", RuleBounds, "bounds 3..5, want a minimum of 2 to 4 and a maximum twice it"}},
		{"a minimum of one", func(tasks *season.Tasks, _ *season.Key, _ []*Result) {
			tasks.Taches[6].AssertionsMin, tasks.Taches[6].AssertionsMax = 1, 2
		}, Problem{"gen-07", RuleBounds, "bounds 1..2, want a minimum of 2 to 4 and a maximum twice it"}},
		{"too many calls", func(_ *season.Tasks, _ *season.Key, results []*Result) {
			results[0].Calls = append(results[0].Calls, "/produits/X")
		}, Problem{"gen-01", RuleCalls, "answering takes 13 calls, want 2 to 12"}},
		{"a second control", func(_ *season.Tasks, k *season.Key, _ []*Result) {
			k.Taches[5].Controle, k.Taches[5].Familles = true, nil
		}, Problem{"", RuleComposition, "2 control tasks [gen-01 gen-06], want exactly one"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks, key, fetch := readTrackSeason(t, corpus.Generique)
			results, err := SolveSeason(tasks, fetch)
			require.NoError(t, err)
			tt.edit(tasks, key, results)
			problems, err := CheckKey(tasks, key, results, fetch)
			require.NoError(t, err)
			assert.Contains(t, problems, tt.want)
		})
	}
}

func TestProbative(t *testing.T) {
	tests := []struct {
		resource, field string
		want            bool
	}{
		{"/entites/ENT-1", "/statut", true},
		{"/entites/ENT-1", "/agrements/0", true},
		{"/entites/ENT-1", "/agrements/12", true},
		{"/entites/ENT-1", "/agrements/01", false},
		{"/entites/ENT-1", "/agrements/-", false},
		{"/entites/ENT-1", "/denomination", false},
		{"/entites/ENT-1", "", false},
		{"/agrements/AGR-1", "/date_fin_validite", true},
		{"/agrements/AGR-1", "/numero_decision", false},
		{"/attestations/ATT-1", "/avenants/3", true},
		{"/avenants/AVN-1", "/nouvelle_date_fin", true},
		{"/avenants/AVN-1", "/description", false},
		{"/listes/agrees/change-manuel", "/entrees/2/statut", true},
		{"/listes/agrees/change-manuel", "/entrees/2/denomination", false},
		{"/listes/agrees/change-manuel", "/page_suivante", false},
		{"/beneficiaires/ENT-1", "/page_suivante", true},
		{"/beneficiaires/ENT-1", "/entrees/0/date_naissance", true},
		{"/beneficiaires/ENT-1", "/entrees/0/nationalite", false},
		{"/mesures-restrictives/MR-2026", "/entrees/4/prenoms", true},
		{"/mesures-restrictives/MR-2026", "/entrees/4/motif", false},
		{"/mesures-restrictives/MR-2026", "/page_suivante", false},
		{"/referentiel", "/attestations_requises", false},
		{"/_systeme/404", "/message", false},
		{"/catalogues/ecrans", "/entrees/0/prix_affiche_ttc", true},
		{"/catalogues/ecrans", "/page_suivante", true},
		{"/catalogues/ecrans", "/categorie", false},
		{"/produits/ECR-2701", "/caracteristiques/dalle", true},
		{"/produits/ECR-2701", "/caracteristiques", false},
		{"/produits/ECR-2701", "/designation", false},
		{"/fournisseurs/FRN-101", "/statut", true},
		{"/tarifs/TAR-ECR-2701", "/prix_unitaire_ttc", true},
		{"/tarifs/TAR-ECR-2701", "/mention", false},
		{"/disponibilites/DSP-ECR-2701", "/date_releve", true},
		{"/livraisons/LIV-107-ANX", "/zones_exclues/0", true},
		{"/livraisons/LIV-107", "/zones/01", false},
		{"/regles-achat", "/catalogues/ecrans", false},
	}
	for _, tt := range tests {
		t.Run(tt.resource+tt.field, func(t *testing.T) {
			assert.Equal(t, tt.want, Probative(tt.resource, tt.field))
		})
	}
}

// ServeTree answers like the server: a file's bytes, the absent body for a
// reference with no file, nothing outside the corpus.
func TestServeTree(t *testing.T) {
	const treeDir = "../../corpus/conformite"
	fetch := ServeTree(os.DirFS(treeDir))
	data, err := os.ReadFile(treeDir + "/agrements/AGR-4417.json")
	require.NoError(t, err)
	got, err := fetch("/agrements/AGR-4417")
	require.NoError(t, err)
	assert.Equal(t, data, got)

	data, err = os.ReadFile("../../corpus/generique/regles-achat.json")
	require.NoError(t, err)
	got, err = ServeTree(os.DirFS("../../corpus/generique"))("/regles-achat")
	require.NoError(t, err)
	assert.Equal(t, data, got)

	got, err = fetch("/avenants/AVN-3412")
	require.NoError(t, err)
	hash, err := manifest.ResponseHash(got)
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
	results, err := SolveSeason(tasks, fetch)
	require.NoError(t, err)
	fact := &key.Taches[2].Faits[0] // conf-03: the attestations the entity lists
	require.Equal(t, "/attestations", fact.Field)
	fact.FormesEquivalentes = []season.Fact{{Resource: fact.Resource, Field: "/attestations/1", Value: json.RawMessage(`"/attestations/ATT-7702"`)}}
	problems, err := CheckKey(tasks, key, results, fetch)
	require.NoError(t, err)
	assert.Empty(t, problems, "a form served exactly, in the graph")

	fact.FormesEquivalentes = append(fact.FormesEquivalentes,
		season.Fact{Resource: fact.Resource, Field: "/attestations/0", Value: json.RawMessage(`"/attestations/ATT-7702"`)},
		season.Fact{Resource: "/entites/ENT-1102", Field: "/statut", Value: json.RawMessage(`"active"`)})
	problems, err = CheckKey(tasks, key, results, fetch)
	require.NoError(t, err)
	var rules []string
	for _, p := range problems {
		assert.Contains(t, p.Message, "equivalent form")
		rules = append(rules, p.Rule)
	}
	assert.ElementsMatch(t, []string{RuleServed, RuleGraph}, rules, "%v", problems)
}
