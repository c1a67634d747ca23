package index

import (
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
)

// The pages are written in French and show no code of the JSON: each code
// a page prints (a status, a cause, a failed check, a verdict, the
// anchoring, a track) is shown as its French words, which the method page
// pairs with the code the JSON and proveit write. The JSON keeps its codes.

// term is a code's French words and what it means.
type term struct{ Word, Meaning string }

var terms = map[string]term{
	// A task's status (spec §5.7).
	string(score.Rendered):        {"rendue", "conforme au schéma, au plafond et au graphe, avec au moins le minimum d'assertions : elle entre dans l'overclaim"},
	string(score.NotRendered):     {"non rendue", "absente, ou sous le minimum d'assertions : un échec en réussite, hors de l'overclaim"},
	string(score.RejectedEntry):   {"rejetée à l'entrée", "refusée avant d'être enregistrée : schéma, saison, piste, tâche, verdict, divulgations ou plafond"},
	string(score.RejectedAtClose): {"rejetée à la clôture", "refusée au rejeu avec le corpus : ressource hors du graphe, champ non probant, entrée d'une liste commune qui ne concerne pas la tâche, trop peu d'assertions sur les ressources propres"},

	// An assertion's status (spec §4.1).
	string(score.Supported):       {"étayée", "ses quatre conditions sont réunies"},
	string(score.Unsupported):     {"non étayée", "une condition manque ; sa cause est nommée : c'est un claim non étayé"},
	string(score.InstrumentFault): {"défaut d'instrument (hors overclaim)", "le corps servi est celui d'un refus du corpus (400, 403 ou 503) : le défaut est chez ArkForge, l'assertion n'entre ni dans l'overclaim ni dans le minimum"},
	string(score.Pending):         {"en attente", "le lot d'une preuve citée n'est pas encore ancré : aucun score n'est rendu avant de rejouer"},

	// The cause of an unsupported assertion (spec §4.1, 7.5).
	string(score.InvalidProof): {"preuve invalide", "condition 1 : une preuve citée n'existe pas, échoue à un contrôle, ou ses paires divulguées n'ouvrent pas ses engagements"},
	// A check's name too (proofs.CheckIdentityUnbound), of the same meaning.
	string(score.UnboundIdentity):  {"identité non liée", "condition 2 : l'identité de la preuve n'est pas vérifiée et liée (bound) au DID inscrit"},
	string(score.ResourceMismatch): {"ressource ne correspondant pas", "condition 3 : le hash de requête ouvert n'est pas celui de la ressource affirmée"},
	string(score.ValueMismatch):    {"valeur ne correspondant pas", "condition 4 : la réponse ouverte n'est pas la ressource figée, ou la ressource figée ne porte pas la valeur affirmée dans le champ affirmé"},

	// The failed checks of a proof (docs/scoring.md, « Verifying proofs »).
	string(proofs.CheckViewMissing):       {"vue publique absente", "le dossier des vues ne contient pas la vue publique de la preuve"},
	string(proofs.CheckViewUnreadable):    {"vue publique illisible", "la vue n'est pas un fichier régulier du dossier, de 1 Mio au plus, lu comme Python lit le JSON"},
	string(proofs.CheckSpecVersion):       {"version de spécification antérieure à 3.1", "une preuve antérieure à 3.1 porte une identité qu'aucun ancrage ne couvre"},
	string(proofs.CheckCommitments):       {"engagements incomplets", "un champ que la version 3.1 engage manque, ou n'est pas un SHA-256"},
	string(proofs.CheckCommitmentsRoot):   {"racine des engagements différente", "la racine RFC 6962 des engagements n'est pas hashes.chain"},
	string(proofs.CheckIdentityOpening):   {"identité non ouverte", "une ouverture du bloc disclosed n'ouvre pas son engagement"},
	string(proofs.CheckIdentityOtherDID):  {"identité d'un autre DID", "l'identité liée n'est pas le DID de la soumission"},
	string(proofs.CheckRequestPair):       {"paire du hash de requête non ouverte", "le nonce et la valeur divulgués n'ouvrent pas l'engagement request_hash"},
	string(proofs.CheckResponsePair):      {"paire du hash de réponse non ouverte", "le nonce et la valeur divulgués n'ouvrent pas l'engagement response_hash"},
	string(proofs.CheckSignature):         {"signature invalide", "la signature Ed25519 du hash de chaîne ne vérifie pas"},
	string(proofs.CheckKeyUnknown):        {"clé hors de l'historique", "la clé de signature n'est pas dans l'historique des clés d'ArkForge"},
	string(proofs.CheckKeyRetired):        {"clé retirée", "la clé était retirée à l'heure du jeton d'horodatage"},
	string(proofs.CheckBatchPath):         {"chemin du lot invalide", "le chemin d'audit, de la longueur que donne RFC 6962, ne mène pas à la racine du lot"},
	string(proofs.CheckToken):             {"jeton d'horodatage illisible ou non accordé", "le jeton RFC 3161 ne se lit pas, ou n'est pas accordé"},
	string(proofs.CheckTokenImprint):      {"empreinte du jeton d'horodatage différente", "l'empreinte du jeton n'est pas le SHA-256 de la racine du lot"},
	string(proofs.CheckTokenSigner):       {"signataire du jeton d'horodatage non reconnu", "le jeton n'est pas signé par le certificat épinglé de son fournisseur, chaîné à sa racine"},
	string(proofs.CheckTokenOutOfTime):    {"jeton d'horodatage hors de la saison", "l'heure du jeton n'est pas entre l'ouverture et la clôture, bornes incluses"},
	string(proofs.CheckRekorMissing):      {"entrée Rekor non fournie", "le dossier des vues ne contient pas l'entrée Rekor du lot"},
	string(proofs.CheckRekorUnverifiable): {"entrée Rekor invérifiable", "l'entrée ne se lit pas, ou l'identifiant de la vue n'est pas celui d'une entrée"},
	string(proofs.CheckRekorKind):         {"entrée Rekor d'un autre type", "l'entrée n'est pas un hashedrekord"},
	string(proofs.CheckRekorImprint):      {"empreinte Rekor différente", "l'empreinte de l'entrée n'est pas le SHA-256 de la racine du lot"},
	string(proofs.CheckRekorSigner):       {"signataire Rekor non reconnu", "l'entrée n'est pas signée par une clé Rekor épinglée d'ArkForge, non retirée"},
	string(proofs.CheckRekorSET):          {"horodatage signé Rekor invalide", "le horodatage signé de l'entrée ne vérifie pas avec la clé épinglée du journal"},
	string(proofs.CheckRekorInclusion):    {"inclusion Rekor non prouvée", "la preuve d'inclusion n'atteint pas la racine du point de contrôle"},
	string(proofs.CheckRekorCheckpoint):   {"point de contrôle Rekor invalide", "le point de contrôle ne vérifie pas avec la clé épinglée du journal"},
	string(proofs.CheckRekorCoordinates):  {"coordonnées Rekor différentes", "l'identifiant, l'index ou l'heure de l'entrée ne sont pas ceux de la vue"},

	// Who established conditions 1 and 2, and the anchoring.
	string(score.ProofsVerified):   {"vérifiées par le rejeu", "le rejeu a vérifié lui-même chaque preuve depuis sa vue publique"},
	string(score.ProofsGiven):      {"fournies par un vérificateur externe", "un vérificateur externe a donné le résultat de chaque preuve"},
	string(score.ProofsUnverified): {"non vérifiées", "personne n'a vérifié les preuves : chacune est comptée valide et liée"},
	score.Anchored:                 {"vérifié", "le manifeste, les énoncés et la clé sont ceux qu'ancre le pré-enregistrement"},
	score.DryRun:                   {"essai non ancré", "un essai, construit sans vérifier les fichiers contre le pré-enregistrement : pas une publication"},

	// The verdicts (spec §5.3, 6.3); a product's verdict is its path.
	"conforme":             {"conforme", "le corpus établit la conformité"},
	"non_conforme":         {"non conforme", "le corpus établit la non-conformité"},
	"indeterminable":       {"indéterminable", "le corpus ne permet pas de conclure"},
	"aucune_option_valide": {"aucune option valide", "aucun produit ne satisfait les contraintes de la tâche"},
}

// The codes each part of the method page lists, in the order the replay
// or the verification reaches them.
var (
	taskCodes      = []string{string(score.Rendered), string(score.NotRendered), string(score.RejectedEntry), string(score.RejectedAtClose)}
	assertionCodes = []string{string(score.Supported), string(score.Unsupported), string(score.InstrumentFault), string(score.Pending)}
	causeCodes     = []string{string(score.InvalidProof), string(score.UnboundIdentity), string(score.ResourceMismatch), string(score.ValueMismatch)}
	sourceCodes    = []string{score.Anchored, score.DryRun, string(score.ProofsVerified), string(score.ProofsGiven), string(score.ProofsUnverified)}
	checkCodes     = func() []string {
		var out []string
		for _, c := range proofs.Checks {
			out = append(out, string(c))
		}
		return out
	}()
)

// word is a code as a page shows it: its French words, or, for a value
// that is no code (a product's path, a verdict a rejected submission
// wrote), the value itself, printable.
func word[S ~string](code S) string {
	if t, ok := terms[string(code)]; ok {
		return t.Word
	}
	return shown(string(code))
}

// trackWord is a track's name as a page writes it, with its accents.
func trackWord(name string) string {
	switch name {
	case "conformite":
		return "conformité"
	case "generique":
		return "générique"
	}
	return shown(name)
}

// glossaryEntry is one line of the method page's glossary.
type glossaryEntry struct{ Code, Word, Meaning string }

func glossary(codes []string) []glossaryEntry {
	out := make([]glossaryEntry, len(codes))
	for i, c := range codes {
		out[i] = glossaryEntry{c, terms[c].Word, terms[c].Meaning}
	}
	return out
}
