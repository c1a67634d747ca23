package index

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
)

//go:embed pages.html.tmpl
var pagesTemplate string

var pages = template.Must(template.New("pages").Funcs(template.FuncMap{
	"reason":    reasonText,
	"shown":     shown,
	"lines":     narrative,
	"word":      word[string],
	"trackWord": trackWord,
	"glossaryTable": func(name string, entries []glossaryEntry) any {
		return struct {
			Name    string
			Entries []glossaryEntry
		}{name, entries}
	},
}).Parse(pagesTemplate))

// MethodPage is the site's page of method and glossary, at its root: every
// table links to it.
const MethodPage = "methode.html"

// page is what every page's head and foot read.
type page struct {
	DryRun   bool
	Title    string
	Rederive rederive
}

// rederive is the box on every page that says how to re-derive it: the
// tool's version, the command, the files it reads, and the season's
// closing, the only date a page gives (the same inputs give the same
// bytes: no page says when it was built).
type rederive struct {
	Version  string
	Command  string
	Closings []closing
	Files    []fileLine
}

// fileLine is one line of the re-derive box's list of files: the Index's
// own words and the paths it names (as code), each a cell the template
// escapes.
type fileLine []cellView

type closing struct{ Track, Date string }

// command is the check that re-derives a site: a dry run's is asked for
// by name, and trust material the build was given is given again, as the
// build's were.
func command(dryRun bool, trust TrustUsed) string {
	c := "bin/proveit index -check SITE -season DIR"
	if trust.Source != trustPinned {
		c += " -trust CONFIANCE"
	}
	if dryRun {
		c += " -dry-run"
	}
	return c
}

// trustPinned is TrustUsed's source when the proofs were verified against
// the material pinned in the tool.
const trustPinned = "epinglee"

// trustFile says which trust material the proofs were verified against.
func trustFile(trust TrustUsed) fileLine {
	if trust.Source == trustPinned {
		return fileLine{prose("le matériel de confiance épinglé dans l'outil ("), code("tools/proofs/trust/"), prose(").")}
	}
	return fileLine{code("CONFIANCE"), prose(" : le dossier de matériel de confiance donné à la construction par "), code("-trust"),
		prose(" ; le JSON de la piste nomme chacun de ses fichiers par son SHA-256 ("), code("confiance"), prose(").")}
}

// homePage is what the home page and the method page read: every track
// the site has.
type homePage struct {
	DryRun   bool
	Version  string
	Trust    TrustUsed
	Tracks   []*corpus.Track
	Closings []closing
}

// add takes a track once its pages are written.
func (h *homePage) add(t *corpus.Track, idx *Index) {
	h.DryRun = idx.Anchoring != anchoredValue
	h.Trust = idx.Trust // one a build: every track's is the same
	h.Tracks = append(h.Tracks, t)
	h.Closings = append(h.Closings, closing{trackWord(t.Name), idx.Closing})
}

// write writes the home page and the method page.
func (h *homePage) write(out sink) error {
	files := []fileLine{
		{code("SITE/index.html"), prose(" : cette page, comparée à celle que la commande reconstruit.")},
		{prose("les fichiers de chaque piste dans "), code("DIR"), prose(" : la page de chaque piste les nomme.")},
	}
	home, err := execute("home", struct {
		page
		Tracks []*corpus.Track
	}{page{h.DryRun, "Index PROVE IT", rederive{h.Version, command(h.DryRun, h.Trust), h.Closings, files}}, h.Tracks})
	if err != nil {
		return err
	}
	if err := out.file("index.html", home); err != nil {
		return err
	}
	files = []fileLine{{code("SITE/" + MethodPage), prose(" : cette page, qui ne reprend aucun chiffre de la saison.")}}
	method, err := execute("methode", struct {
		page
		Checks, Statuses, Causes, Tasks, Sources []glossaryEntry
	}{
		page:   page{h.DryRun, "Index PROVE IT : méthode et glossaire", rederive{h.Version, command(h.DryRun, h.Trust), h.Closings, files}},
		Checks: glossary(checkCodes), Statuses: glossary(assertionCodes), Causes: glossary(causeCodes), Tasks: glossary(taskCodes),
		Sources: glossary(sourceCodes),
	})
	if err != nil {
		return err
	}
	return out.file(MethodPage, method)
}

// seasonFiles are the files a track's pages are re-derived from: the
// season folder's and the tool's; submissions names whose submissions.
func seasonFiles(track string, dryRun bool, trust TrustUsed, submissions string) []fileLine {
	defaults := fileLine{code(season.Dir + "/")}
	if t, err := corpus.TrackNamed(track); err == nil {
		defaults = fileLine{code(season.TasksFile(t)), prose(" et "), code(season.RecordFile(t))}
	}
	dir := "DIR/" + track + "/"
	files := []fileLine{
		{code(dir + "inscriptions.json"), prose(" : l'export des inscriptions de la piste.")},
		{code(dir + "soumissions/" + submissions + "/*.json"), prose(" : les soumissions qui comptent.")},
	}
	if dryRun {
		files = append(files, fileLine{code(dir + "cle.json"), prose(" : la clé de réponses (un essai ne la vérifie pas contre le pré-enregistrement).")})
	} else {
		files = append(files, fileLine{code(dir + "cle.json"), prose(" et "), code(dir + "sel"),
			prose(" : la clé de réponses et le sel révélés à la clôture, qui ouvrent l'engagement du pré-enregistrement.")})
	}
	records := slices.Concat(fileLine{code(dir + "taches.json"), prose(" et "), code(dir + "preenregistrement.json"),
		prose(" s'ils existent, sinon ceux de la saison compilés dans l'outil (")}, defaults,
		fileLine{prose(") ; "), code(dir + seal.AnchoringFile), prose(" s'il existe : l'ancrage du pré-enregistrement, dont la preuve est vérifiée comme "),
			code("proveit seal -verify"), prose(" la vérifie.")})
	return append(files,
		records,
		fileLine{code("DIR/views/"), prose(" : la vue publique de chaque preuve citée et l'entrée Rekor de son lot.")},
		trustFile(trust),
		fileLine{prose("le manifeste et l'arbre figé du corpus de la piste, compilés dans l'outil.")},
	)
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

// tableView is one table of a track's page: its chart and its cells, each
// a value the template renders.
type tableView struct {
	Name, Heading, Legend string
	Chart                 chartView
	Columns               []column
	Rows                  []rowView
}

type rowView struct {
	ID       string
	Constant bool
	Cells    []cellView
}

// cellView is one value a page shows in a table or a list: its text; a link
// to Href when Href is set, else code when Code is set; then, when
// Declared, the tag that says a stack is declared and not verified. It
// holds strings, never markup: the template ("cell") escapes each in its
// context, the text as HTML text and Href through html/template's URL
// filter and normaliser, so that a third party's name, stack or link is
// shown as written and can neither close the cell nor carry a script.
// What a third party wrote reaches Text and Href through shown (text,
// code, link), the one printable rule; escaping is the template's alone.
type cellView struct {
	Text     string
	Href     string
	Code     bool
	Declared bool
}

// text is a value shown as given, printable, in at most shownLimit
// characters.
func text(s string) cellView { return cellView{Text: shown(s)} }

// code is a value shown as code (a DID, a path), printable.
func code(s string) cellView { return cellView{Text: shown(s), Code: true} }

// link is an anchor labelled label to a URL a third party gave, shown
// printable as every such text; the template filters it as a URL.
func link(url, label string) cellView { return cellView{Text: label, Href: shown(url)} }

// prose is the Index's own words, shown as written.
func prose(s string) cellView { return cellView{Text: s} }

// declared is a stack as a community table shows it: text of the
// operator's, tagged as declared and not verified.
func declared(stack string) cellView {
	c := text(stack)
	c.Declared = true
	return c
}

type trackPage struct {
	page
	Index     *Index
	TrackWord string
	Tables    []tableView
}

func renderTrack(idx *Index, version string) ([]byte, error) {
	dry := idx.Anchoring != anchoredValue
	files := append([]fileLine{{code("SITE/" + idx.Track + "/index.html"), prose(" et "), code("SITE/" + idx.Track + "/index.json"),
		prose(" : cette page et son JSON, comparés cellule par cellule à ceux que la commande reconstruit.")},
	}, seasonFiles(idx.Track, dry, idx.Trust, "*")...)
	p := trackPage{
		page: page{dry, fmt.Sprintf("Index PROVE IT, saison %d, piste %s", idx.Season, trackWord(idx.Track)),
			rederive{version, command(dry, idx.Trust), []closing{{trackWord(idx.Track), idx.Closing}}, files}},
		Index: idx, TrackWord: trackWord(idx.Track),
	}
	for _, name := range []string{TableReference, TableCommunity} {
		p.Tables = append(p.Tables, tableOf(idx, name))
	}
	return execute("track", p)
}

// constantSuccess says what the constant-best-answer row counts: exact
// verdicts of one verdict answered everywhere, without a call, so none of
// them founded; its figure is not a success rate.
func constantSuccess(c Constant) string {
	return fmt.Sprintf("%d / %d verdicts exacts, aucun fondé", c.Success, c.OutOf)
}

func constantRow(c Constant) string {
	return "meilleure réponse constante (verdict « " + word(c.Verdict) + " » partout, sans un appel)"
}

// tableOf is one of a track's tables: the constant-best-answer row
// first, then the rows in their order.
func tableOf(idx *Index, name string) tableView {
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
	dash := prose("—")
	constant := []cellView{dash, text(constantRow(idx.Constant)), dash,
		prose("sans objet"), text(constantSuccess(idx.Constant)), dash, dash, dash}
	if name == TableReference {
		constant = append(constant, dash, dash, dash, dash)
	}
	t.Rows = append(t.Rows, rowView{ID: "meilleure_reponse_constante", Constant: true, Cells: constant})
	numbers := rowNumbers(name, rows)
	for i, r := range rows {
		stack := text(r.Stack)
		if name == TableCommunity {
			stack = declared(r.Stack)
		}
		// The row's id is an enrollment's (a-z, 0-9 and -): its report's
		// name, a relative link.
		cells := []cellView{text(strconv.Itoa(numbers[i])),
			{Text: shown(r.Agent), Href: r.ID + ".html"},
			code(r.DID),
			text(overclaimText(r.Overclaim)),
			text(fmt.Sprintf("%d / %d", r.Success.Founded, r.Success.OutOf)),
			text(fmt.Sprintf("%d / %d", r.Rendered, r.Success.OutOf)),
			stack,
			link(r.ProofsLink, "preuves"),
		}
		if name == TableReference {
			for _, v := range []*string{r.Model, r.Version, r.Framework, r.Prompt} {
				cells = append(cells, text(deref(v)))
			}
		}
		t.Rows = append(t.Rows, rowView{ID: r.ID, Cells: cells})
	}
	t.Chart = chart(name, rows, numbers, idx.Constant)
	return t
}

// rowNumbers are the numbers a table shows its rows by: the rank in the
// community table (equal figures share it), the row's place among the
// reference runs, which are not ranked.
func rowNumbers(table string, rows []Row) []int {
	if table == TableCommunity {
		return ranks(rows)
	}
	out := make([]int, len(rows))
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// shown is a string as a page shows it: the project's one printable rule
// (internal/printable), so that no control, format or bidirectional
// character a third party wrote (an agent's name, a stack, a claim) reaches
// a page, where it would reorder the text around it; such a string is
// shown escaped (\u202e), visibly. Accents stay as they are. At most
// shownLimit characters of it are shown.
func shown(s string) string { return printable.String(cut(s, shownLimit)) }

// narrative is a narrative as a page shows it: its lines kept, each
// printable, at most narrativeLimit characters.
func narrative(s string) string { return printable.Lines(cut(s, narrativeLimit)) }

// A page shows at most this much of one text a third party wrote; the
// JSON beside it carries the text whole. Whatever a participant submits
// (a submission may hold a megabyte), its pages stay readable and within
// the bound a published page is held to.
const (
	shownLimit     = 4 << 10  // characters of a name, a stack, a claim
	narrativeLimit = 64 << 10 // characters of a narrative
)

// clippedMark ends a text a page shows only in part.
const clippedMark = " […] (tronqué ; le texte entier est dans le JSON de la page)"

// cut is s cut to limit characters, marked so when cut.
func cut(s string, limit int) string {
	n := 0
	for i := range s {
		if n == limit {
			return s[:i] + clippedMark
		}
		n++
	}
	return s
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
	return shown(reason)
}

// factText is a fact, claimed or missing, as a page shows it: resource,
// field and value, the value as Python writes it without ensure_ascii, so
// that a name reads "Hélène" and never "H\u00e9l\u00e8ne" (the canonical
// form is for hashing, not reading).
func factText(resource, field string, value []byte) string {
	return resource + " " + field + " = " + valueText(value)
}

func valueText(raw []byte) string {
	v, err := pyjson.Parse(raw)
	if err != nil {
		return string(raw)
	}
	return string(pyjson.AppendCompact(nil, v))
}

type reportPage struct {
	Index      *Index
	Enrollment *Enrollment
	Row        Row
	Replayed   *replayed
	Version    string
}

type factView struct {
	Key, Label string
	Value      cellView
}

func renderReport(r reportPage) ([]byte, error) {
	en := r.Enrollment
	stack := text(en.Stack)
	table := "runs de référence (calibration, pas un classement)"
	if en.Table == TableCommunity {
		stack = declared(en.Stack)
		table = "communauté"
	}
	facts := []factView{
		{"agent", "agent", text(en.Agent)},
		{"did", "DID", code(en.DID)},
		{"tableau", "tableau", text(table)},
		{"taux_overclaim", "taux d'overclaim", text(overclaimText(r.Row.Overclaim))},
		{"reussite", "taux de réussite", text(fmt.Sprintf("%d / %d", r.Row.Success.Founded, r.Row.Success.OutOf))},
		{"taches_rendues", "tâches rendues", text(fmt.Sprintf("%d / %d", r.Row.Rendered, r.Row.Success.OutOf))},
		{"meilleure_reponse_constante", "meilleure réponse constante", text(constantSuccess(r.Index.Constant) + " (verdict « " + word(r.Index.Constant.Verdict) + " » partout, sans un appel)")},
		{"stack_declaree", "stack déclarée", stack},
		{"lien_preuves", "lien vers les preuves", link(en.ProofsLink, "preuves")},
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
		founded := word("en_attente")
		if t.Founded != nil {
			founded = yesNo(*t.Founded)
		}
		verdict := "—"
		if t.Verdict != "" {
			verdict = word(t.Verdict)
		}
		tasks = append(tasks, rowView{ID: shown(t.ID), Cells: []cellView{text(t.ID), text(word(t.Status)), text(verdict), text(yesNo(t.Exact)), text(founded),
			text(joinOr(t.Missing, "; ", "aucun")), text(orDash(t.Reason))}})
		for _, a := range t.Assertions {
			var failed []string
			for _, f := range a.Failures {
				checks := make([]string, len(f.Checks))
				for i, c := range f.Checks {
					checks[i] = word(c)
				}
				failed = append(failed, f.ProofID+" : "+strings.Join(checks, ", "))
			}
			claim := "—"
			if a.Claim != nil {
				claim = factText(a.Claim.Resource, a.Claim.Field, a.Claim.Value)
			}
			cause := "—"
			if a.Cause != "" {
				cause = word(a.Cause)
			}
			assertions = append(assertions, rowView{ID: shown(t.ID + "/" + a.ID), Cells: []cellView{text(t.ID), text(a.ID), text(word(a.Status)),
				text(cause), text(claim), text(orDash(a.Served)), text(joinOr(failed, "; ", "—"))}})
		}
	}
	dry := r.Index.Anchoring != anchoredValue
	track := r.Index.Track
	files := append([]fileLine{{code("SITE/" + track + "/" + en.ID + ".html"), prose(" et "), code("SITE/" + track + "/" + en.ID + ".json"),
		prose(" : cette page et son JSON, comparés cellule par cellule à ceux que la commande reconstruit.")},
	}, seasonFiles(track, dry, r.Index.Trust, en.ID)...)
	return execute("report", struct {
		page
		Index      *Index
		Enrollment *Enrollment
		TrackWord  string
		Replayed   struct {
			Conditions string
			Narratives []Narrative
		}
		Facts      []factView
		Tasks      []rowView
		Assertions []rowView
	}{
		page: page{dry, fmt.Sprintf("Rapport individuel, %s, piste %s", shown(en.Agent), trackWord(track)),
			rederive{r.Version, command(dry, r.Index.Trust), []closing{{trackWord(track), r.Index.Closing}}, files}},
		Index: r.Index, Enrollment: en, TrackWord: trackWord(track),
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
