// Package catalogue builds a track's public catalogue (spec §2.4,
// docs/contract.md section 9): for each collection the canonical URL, character
// for character, as a template with its id grammar; the call every resource
// takes through Trust Layer; the exact request_data and its hash with worked
// examples; the forms of a URL that change the hash; and, word for word,
// what the track's rules document publishes of the scoring. It is built
// from the manifest, the path grammar and that document, and names no resource beyond the
// statements' own references: a list of every resource would reveal the
// absent ones by omission.
//
// It also checks what may be published at the season's opening (Opening):
// nothing there may name an absent reference the statements do not name,
// nor hold the manifest, which is published at the close.
package catalogue

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Format identifies the catalogue's JSON shape.
const format = "proveit-corpus-catalogue/1"

// idPlaceholder stands for the id in a URL template.
const idPlaceholder = "{id}"

// Catalogue is one track's catalogue.
type Catalogue struct {
	Format         string       `json:"format"`
	Track          string       `json:"piste"`
	Season         string       `json:"saison"`
	ManifestSHA256 string       `json:"manifest_sha256"`
	Origin         string       `json:"origin"`
	Call           Call         `json:"appel"`
	RequestData    RequestData  `json:"request_data"`
	IDGrammar      string       `json:"grammaire_id"`
	Resources      []Resource   `json:"ressources"`
	Collections    []Collection `json:"collections"`
	// ReferenceRule: a reference is called exactly as written.
	ReferenceRule string `json:"regle_reference"`
	// Example is the worked example: the statements' first reference.
	Example      Example   `json:"exemple"`
	RefusedForms []Refused `json:"formes_refusees"`
	// Scoring repeats the scoring rules the track's rules document publishes.
	Scoring season.Notation `json:"notation"`
	// Proofs says what a submission discloses of each proof it cites and
	// how the scorer verifies it.
	Proofs ProofVerification `json:"preuves"`
}

// ProofVerification is what a participant needs to know of conditions 1
// and 2 (spec §4, §4.1): the disclosure, the checks a proof fails by name,
// and what the specification's worked example is.
type ProofVerification struct {
	Disclosure   string         `json:"divulgation"`
	Verification string         `json:"verification"`
	Checks       []proofs.Check `json:"verifications"`
	SpecExample  string         `json:"exemple_specification"`
}

// proofVerification is the same for every track: the proofs are Trust
// Layer's, whatever the corpus.
var proofVerification = ProofVerification{
	Disclosure: "Pour chaque proof_id cité, la soumission joint dans disclosures les paires request_hash et " +
		"response_hash, chacune {nonce, value} telles que les rend GET /v1/proof/{id}/full (commitment_nonces et " +
		"chain_data) : le nonce de 64 chiffres hexadécimaux et la valeur, le hash de 64 chiffres hexadécimaux sans " +
		"préfixe sha256:. Ces paires ouvrent les engagements de la preuve ; les champs plats de la vue publique " +
		"(hashes.request, hashes.response, agent_identity...) ne comptent pas. Les preuves doivent être en " +
		"spec_version 3.1 ou au-delà, et leur identité ouverte sur l'agent_did de la soumission, vérifiée et liée " +
		"(did_resolution_status \"bound\"), ce qui demande d'appeler POST /v1/proxy avec son DID.",
	Verification: "Le scorer vérifie chaque preuve hors ligne, à partir de sa vue publique (GET /v1/proof/{id}), " +
		"de l'entrée Rekor de son lot et des disclosures, contre les clés publiées d'ArkForge, les certificats de " +
		"l'autorité d'horodatage et la clé du journal Rekor : les engagements et leur racine, le bloc d'identité, " +
		"les paires, la signature Ed25519, le chemin du lot, de la longueur attendue, le jeton RFC 3161 sur la " +
		"racine du lot et l'entrée Rekor. L'heure retenue est celle du jeton, jamais le timestamp de Trust Layer, " +
		"et elle doit tomber entre l'ouverture et la clôture de la saison (ouverture et cloture du " +
		"pré-enregistrement), bornes incluses. Une preuve dont le lot n'est pas encore fermé (environ dix minutes) " +
		"est en attente : ni valide ni invalide. Le rapport nomme chaque vérification échouée par son identifiant, " +
		"ci-dessous.",
	Checks: proofs.Checks,
	SpecExample: "L'exemple de soumission de la section 4 de la spécification (conf-03, /agrements/AGR-4417, " +
		"suspendu) illustre le format seulement : ni sa tâche, ni sa ressource, ni sa valeur ne disent quoi que ce " +
		"soit du corpus ou de la réponse attendue.",
}

// Call is what every corpus call sends to Trust Layer's POST /v1/proxy.
type Call struct {
	Method   string               `json:"method"`
	Payload  struct{}             `json:"payload"`
	Amount   manifest.PythonFloat `json:"amount"`
	Currency string               `json:"currency"`
	// ExtraHeaders is always null: none may be sent, since their keys
	// would enter request_data.
	ExtraHeaders *struct{} `json:"extra_headers"`
}

// RequestData is how request_data is formed and hashed.
type RequestData struct {
	// Template is request_data in its canonical form, the target left as
	// {target}.
	Template string `json:"gabarit"`
	// Hashing names the computation.
	Hashing string `json:"hachage"`
}

// Example is request_data and its hash for one canonical path, computed.
type Example struct {
	Path          string `json:"chemin"`
	Target        string `json:"target"`
	CanonicalJSON string `json:"canonical_json"`
	RequestHash   string `json:"request_hash"`
}

// Resource is a single resource, at a fixed path.
type Resource struct {
	Path    string  `json:"chemin"`
	Example Example `json:"exemple"`
}

// Collection is a family of resources /<collection>/<id>.
type Collection struct {
	Collection string `json:"collection"`
	Template   string `json:"gabarit"`
	// RequestData is the canonical request_data of the template.
	RequestData string `json:"request_data"`
	// Examples are the statements' own references into the collection.
	Examples []Example `json:"exemples"`
}

// Refused is a form of a URL that is not the canonical one.
type Refused struct {
	Form        string `json:"forme"`
	Target      string `json:"target"`
	RequestHash string `json:"request_hash"`
	// ServerStatus is the status the server answers the path with (400),
	// or null when the server never sees the difference.
	ServerStatus *int   `json:"statut_serveur"`
	Why          string `json:"pourquoi"`
}

// Build makes the catalogue of a track from its manifest, the references
// its statements name, in the order they name them (season.Tasks.Citations):
// the first is the worked example, and the served bytes of its rules
// document, whose scoring rules it repeats.
func Build(m *manifest.Manifest, manifestBytes []byte, saison string, named []string, rulesDocument []byte) (*Catalogue, error) {
	track, err := corpus.TrackNamed(m.Track)
	if err != nil {
		return nil, err
	}
	if e, ok := m.Lookup(track.Rules); !ok || e.BytesSHA256 != anchor.SHA256(rulesDocument) {
		return nil, fmt.Errorf("%s: the rules document given is not the one the manifest of %s lists", track.Rules, m.Track)
	}
	scoring, err := season.ReadNotation(track.Rules, rulesDocument)
	if err != nil {
		return nil, err
	}
	c := &Catalogue{
		Format:         format,
		Track:          m.Track,
		Season:         saison,
		ManifestSHA256: anchor.SHA256(manifestBytes),
		Origin:         m.Origin,
		Call:           Call{Method: manifest.Request.Method, Amount: manifest.Request.Amount, Currency: manifest.Request.Currency},
		RequestData: RequestData{
			Template: string(pyjson.Canonical(anchor.RequestData("{target}"))),
			Hashing:  "sha256(canonical_json(request_data)), canonical_json = json.dumps(request_data, sort_keys=True, separators=(\",\", \":\")), ensure_ascii=True",
		},
		IDGrammar:     corpus.IDGrammar,
		ReferenceRule: "une référence s'appelle exactement comme l'écrit un énoncé ou un document servi : l'origine suivie du chemin, sans rien ajouter, retirer ni normaliser",
		Scoring:       scoring,
		Proofs:        proofVerification,
	}
	collections := map[string]*Collection{}
	for _, e := range m.Resources {
		if e.Kind == manifest.System {
			continue
		}
		ref, ok := corpus.ParseReference(e.Path)
		if !ok {
			if e.Kind == manifest.Document {
				c.Resources = append(c.Resources, Resource{Path: e.Path, Example: example(m, e.Path)})
			}
			continue
		}
		name := ref.Collection()
		if collections[name] == nil {
			template := m.Origin + "/" + name + "/" + idPlaceholder
			collections[name] = &Collection{Collection: name, Template: template, RequestData: string(pyjson.Canonical(anchor.RequestData(template))), Examples: []Example{}}
		}
	}
	refs := slices.Clone(named)
	slices.Sort(refs)
	refs = slices.Compact(refs)
	if len(refs) == 0 {
		return nil, fmt.Errorf("the statements name no reference: no worked example")
	}
	for _, ref := range refs {
		name := corpus.CollectionOf(ref)
		if collections[name] == nil {
			return nil, fmt.Errorf("the statements name %s, which is in no collection of the manifest of %s", ref, m.Track)
		}
		collections[name].Examples = append(collections[name].Examples, example(m, ref))
	}
	for _, name := range slices.Sorted(maps.Keys(collections)) {
		c.Collections = append(c.Collections, *collections[name])
	}
	c.Example = example(m, named[0])
	c.RefusedForms, err = refusedForms(m, named[0])
	return c, err
}

func example(m *manifest.Manifest, path string) Example {
	target := m.Target(path)
	return Example{Path: path, Target: target, CanonicalJSON: string(pyjson.Canonical(anchor.RequestData(target))), RequestHash: anchor.RequestHash(target)}
}

// refusedForms lists the forms of a canonical path's URL that are not it,
// each with the request_hash it would give and what the server answers.
func refusedForms(m *manifest.Manifest, path string) ([]Refused, error) {
	i := strings.LastIndexByte(path, '/')
	dir, id := path[:i], path[i+1:]
	scheme, host, _ := strings.Cut(m.Origin, "://")
	forms := []struct{ forme, target, pourquoi string }{
		{"barre oblique finale", m.Origin + path + "/", "un autre chemin : le serveur le refuse, et la cible hachée n'est plus la même"},
		{"point d'interrogation seul", m.Origin + path + "?", "même vide, la requête fait partie de la cible hachée ; le serveur la refuse"},
		{"paramètres de requête", m.Origin + path + "?format=json", "le corpus ne prend aucun paramètre : payload vaut {} et la cible n'a pas de requête"},
		{"encodage pourcent", m.Origin + dir + "/" + fmt.Sprintf("%%%02X", id[0]) + id[1:], "un caractère encodé change la chaîne hachée, même s'il désigne le même octet ; le serveur refuse tout encodage"},
		{"segment vide", m.Origin + dir + "//" + id, "un segment vide change le chemin ; le serveur le refuse"},
		{"segment point", m.Origin + dir + "/./" + id, "aucune normalisation : le chemin doit être écrit sans segment . ou .."},
		{"hôte en majuscules", scheme + "://" + strings.ToUpper(host) + path, "l'origine fait partie de la cible hachée, caractère pour caractère"},
		{"port explicite", m.Origin + ":443" + path, "l'origine fait partie de la cible hachée, caractère pour caractère"},
		{"schéma http", "http://" + host + path, "l'origine est " + m.Origin + ", caractère pour caractère"},
	}
	canonical := anchor.RequestHash(m.Target(path))
	out := make([]Refused, 0, len(forms))
	for _, f := range forms {
		r := Refused{Form: f.forme, Target: f.target, RequestHash: anchor.RequestHash(f.target), Why: f.pourquoi}
		if r.RequestHash == canonical {
			return nil, fmt.Errorf("the form %q of %s gives the canonical request_hash", f.forme, path)
		}
		if rawPath, ok := strings.CutPrefix(f.target, m.Origin); ok && strings.HasPrefix(rawPath, "/") {
			if _, err := corpus.CheckTarget(rawPath); err != nil {
				status := corpus.SystemStatus[corpus.SystemBadRequest]
				r.ServerStatus = &status
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// JSON writes the catalogue for programs: two-space indentation, a final
// newline, nothing escaped that need not be.
func (c *Catalogue) JSON() []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		panic(err) // strings, ints and structs only
	}
	return []byte(b.String())
}

//go:embed catalogue.md.tmpl
var pageTemplate string

var page = template.Must(template.New("catalogue").Parse(pageTemplate))

// Markdown writes the catalogue for people.
func (c *Catalogue) Markdown() []byte {
	var b bytes.Buffer
	if err := page.Execute(&b, c); err != nil {
		panic(err) // the template is compiled in and tested
	}
	return b.Bytes()
}
