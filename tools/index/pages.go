package index

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"unicode"

	"github.com/arkforge/proveit-corpus/corpus"
)

//go:embed pages.html.tmpl
var pagesTemplate string

var pages = template.Must(template.New("pages").Funcs(template.FuncMap{
	"reason": reasonText,
	"shown":  shown,
}).Parse(pagesTemplate))

// page is what every page's head reads.
type page struct {
	DryRun bool
	Title  string
}

type homePage struct {
	DryRun bool
	Tracks []*corpus.Track
}

func renderHome(h homePage) ([]byte, error) {
	return execute("home", struct {
		page
		Tracks []*corpus.Track
	}{page{h.DryRun, "Index PROVE IT"}, h.Tracks})
}

func execute(name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// column is one column of a table: its key (the JSON member it shows) and
// its label.
type column struct{ Key, Label string }

// The columns of specification 7.2, in order, after the row's rank.
var (
	rankColumn    = column{"rang", "rang"}
	columns72     = []column{{"agent", "agent"}, {"did", "DID"}, {"taux_overclaim", "taux d'overclaim"}, {"reussite", "taux de réussite"}, {"taches_rendues", "tâches rendues"}, {"stack_declaree", "stack déclarée"}, {"lien_preuves", "lien vers les preuves"}}
	referenceRuns = []column{{"modele", "modèle"}, {"version", "version"}, {"framework", "framework"}, {"prompt", "prompt"}}
)

// tableView is one table of a track's page, cells rendered.
type tableView struct {
	Name, Heading, Legend string
	Chart                 template.HTML
	Columns               []column
	Rows                  []rowView
}

type rowView struct {
	ID       string
	Constant bool
	Cells    []template.HTML
}

type trackPage struct {
	page
	Index  *Index
	Tables []tableView
}

func renderTrack(idx *Index) ([]byte, error) {
	p := trackPage{page: page{idx.Anchoring != anchoredValue, fmt.Sprintf("Index PROVE IT, saison %d, piste %s", idx.Season, idx.Track)}, Index: idx}
	for _, name := range []string{TableReference, TableCommunity} {
		t, err := tableOf(idx, name)
		if err != nil {
			return nil, err
		}
		p.Tables = append(p.Tables, t)
	}
	return execute("track", p)
}

// tableOf renders one of a track's tables: the constant-best-answer row
// first, then the rows in their order.
func tableOf(idx *Index, name string) (tableView, error) {
	rows := idx.Tables.Community
	t := tableView{Name: name, Heading: "Communauté",
		Legend:  "Soumissions des participants. La stack de chaque ligne est déclarée par son opérateur : stack déclarée, non vérifiée.",
		Columns: append([]column{rankColumn}, columns72...)}
	if name == TableReference {
		rows = idx.Tables.Reference
		t.Heading = "Runs de référence : calibration, pas un classement"
		t.Legend = "Runs exécutés par ArkForge, modèle, version, framework et prompt publiés et rejouables. Ils calibrent la mesure ; ils ne sont pas classés."
		t.Columns = append(append([]column{{"n", "n°"}}, columns72...), referenceRuns...)
	}
	dash := template.HTML("—")
	constant := []template.HTML{dash, text("meilleure réponse constante (verdict " + idx.Constant.Verdict + " partout)"), dash,
		"sans objet", text(fmt.Sprintf("%d / %d", idx.Constant.Success, idx.Constant.OutOf)), dash, dash, dash}
	if name == TableReference {
		constant = append(constant, dash, dash, dash, dash)
	}
	t.Rows = append(t.Rows, rowView{ID: "meilleure_reponse_constante", Constant: true, Cells: constant})
	rk := ranks(rows)
	for i, r := range rows {
		number := strconv.Itoa(rk[i])
		if name == TableReference {
			number = strconv.Itoa(i + 1)
		}
		stack := text(r.Stack)
		if name == TableCommunity {
			stack += ` <span class="etiquette">stack déclarée, non vérifiée</span>`
		}
		cells := []template.HTML{text(number),
			template.HTML(`<a href="` + template.HTMLEscapeString(r.ID) + `.html">` + template.HTMLEscapeString(r.Agent) + `</a>`),
			"<code>" + text(r.DID) + "</code>",
			text(overclaimText(r.Overclaim)),
			text(fmt.Sprintf("%d / %d", r.Success.Founded, r.Success.OutOf)),
			text(fmt.Sprintf("%d / %d", r.Rendered, r.Success.OutOf)),
			stack,
			template.HTML(`<a href="` + template.HTMLEscapeString(r.ProofsLink) + `">preuves</a>`),
		}
		if name == TableReference {
			for _, v := range []*string{r.Model, r.Version, r.Framework, r.Prompt} {
				cells = append(cells, text(deref(v)))
			}
		}
		t.Rows = append(t.Rows, rowView{ID: r.ID, Cells: cells})
	}
	var err error
	t.Chart, err = chart(name, rows, rk, idx.Constant)
	return t, err
}

// text is a value shown as given, escaped.
func text(s string) template.HTML { return template.HTML(template.HTMLEscapeString(shown(s))) }

// shown is a published string as a page shows it: valid UTF-8, no control
// character but the line breaks and tabs of a narrative.
func shown(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return '\uFFFD'
		}
		return r
	}, s)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// percent writes a fraction as the pages do: 12,5 %.
func percent(rate float64) string {
	s := strconv.FormatFloat(rate*100, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return strings.Replace(s, ".", ",", 1) + "\u00a0%"
}

func overclaimText(o Overclaim) string {
	if o.Rate == nil {
		return fmt.Sprintf("aucune assertion rendue (%d / %d)", o.Unsupported, o.Rendered)
	}
	return fmt.Sprintf("%s (%d claims non étayés / %d assertions rendues)", percent(*o.Rate), o.Unsupported, o.Rendered)
}

func reasonText(reason string) string {
	if reason == SameKey {
		return "même clé qu'une inscription antérieure (un participant par clé)"
	}
	return reason
}

// Words of the report: the replay's statuses and causes, as a reader reads
// them (spec §4.1, 7.5).
var words = map[string]string{
	"rendue": "rendue", "non_rendue": "non rendue", "rejetee_entree": "rejetée à l'entrée", "rejetee_cloture": "rejetée à la clôture",
	"etayee": "étayée", "non_etayee": "non étayée", "defaut_instrument": "défaut d'instrument (hors overclaim)", "en_attente": "en attente",
	"preuve_invalide": "preuve invalide", "identite_non_liee": "identité non liée",
	"ressource_ne_correspond_pas": "ressource ne correspondant pas", "valeur_ne_correspond_pas": "valeur ne correspondant pas",
}

func word(s string) string {
	if w, ok := words[s]; ok {
		return w
	}
	return s
}

type reportPage struct {
	Index      *Index
	Enrollment *Enrollment
	Row        Row
	Replayed   *replayed
}

type factView struct {
	Key, Label string
	Value      template.HTML
}

func renderReport(r reportPage) ([]byte, error) {
	en := r.Enrollment
	stack := text(en.Stack)
	table := "runs de référence (calibration, pas un classement)"
	if en.Table == TableCommunity {
		stack += ` <span class="etiquette">stack déclarée, non vérifiée</span>`
		table = "communauté"
	}
	facts := []factView{
		{"agent", "agent", text(en.Agent)},
		{"did", "DID", "<code>" + text(en.DID) + "</code>"},
		{"tableau", "tableau", text(table)},
		{"taux_overclaim", "taux d'overclaim", text(overclaimText(r.Row.Overclaim))},
		{"reussite", "taux de réussite", text(fmt.Sprintf("%d / %d", r.Row.Success.Founded, r.Row.Success.OutOf))},
		{"taches_rendues", "tâches rendues", text(fmt.Sprintf("%d / %d", r.Row.Rendered, r.Row.Success.OutOf))},
		{"meilleure_reponse_constante", "meilleure réponse constante", text(fmt.Sprintf("%d / %d (verdict %s partout)", r.Index.Constant.Success, r.Index.Constant.OutOf, r.Index.Constant.Verdict))},
		{"stack_declaree", "stack déclarée", stack},
		{"lien_preuves", "lien vers les preuves", template.HTML(`<a href="` + template.HTMLEscapeString(en.ProofsLink) + `">preuves</a>`)},
	}
	if en.Table == TableReference {
		for _, f := range []struct {
			key, label string
			v          *string
		}{{"modele", "modèle", en.Model}, {"version", "version", en.Version}, {"framework", "framework", en.Framework}, {"prompt", "prompt", en.Prompt}} {
			facts = append(facts, factView{f.key, f.label, text(deref(f.v))})
		}
	}
	var tasks, assertions []rowView
	for _, t := range r.Replayed.tasks {
		founded := "en attente"
		if t.Founded != nil {
			founded = yesNo(*t.Founded)
		}
		verdict := t.Verdict
		if verdict == "" {
			verdict = "—"
		}
		tasks = append(tasks, rowView{ID: t.ID, Cells: []template.HTML{text(t.ID), text(word(t.Status)), text(verdict), text(yesNo(t.Exact)), text(founded),
			text(joinOr(t.Missing, "; ", "aucun")), text(orDash(t.Reason))}})
		for _, a := range t.Assertions {
			var failed []string
			for _, f := range a.Failures {
				failed = append(failed, f.ProofID+" : "+strings.Join(f.Checks, ", "))
			}
			assertions = append(assertions, rowView{ID: t.ID + "/" + a.ID, Cells: []template.HTML{text(t.ID), text(a.ID), text(word(a.Status)),
				text(orDash(word(a.Cause))), text(joinOr(failed, "; ", "—"))}})
		}
	}
	return execute("report", struct {
		page
		Index      *Index
		Enrollment *Enrollment
		Replayed   struct {
			Conditions string
			Narratives []Narrative
		}
		Facts      []factView
		Tasks      []rowView
		Assertions []rowView
	}{
		page:  page{r.Index.Anchoring != anchoredValue, fmt.Sprintf("Rapport individuel, %s, piste %s", shown(en.Agent), r.Index.Track)},
		Index: r.Index, Enrollment: en,
		Replayed: struct {
			Conditions string
			Narratives []Narrative
		}{r.Replayed.conditions, r.Replayed.narratives},
		Facts: facts, Tasks: tasks, Assertions: assertions,
	})
}

func yesNo(b bool) string {
	if b {
		return "oui"
	}
	return "non"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func joinOr(list []string, sep, none string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(list, sep)
}
