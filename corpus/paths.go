package corpus

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The single resources that state each track's rules.
const (
	Referentiel = "/referentiel"  // conformity: R1..R6 and their precedence
	ReglesAchat = "/regles-achat" // purchasing: G1..G6 and the selection
)

// The challenge secret: the header only Trust Layer's proxy adds, which the
// server's gate reads, and the shortest secret it accepts, in bytes.
const (
	SecretHeader    = "X-Challenge-Secret"
	MinSecretLength = 32
)

// systemPrefix holds the fixed bodies of the HTTP contract. They are files of
// the tree and entries of the manifest, but are never served at their path.
const systemPrefix = "/_systeme/"

// System paths of the fixed bodies, by the status they are answered with.
const (
	SystemBadRequest  = "/_systeme/400"
	SystemForbidden   = "/_systeme/403"
	SystemNotFound    = "/_systeme/404"
	SystemUnavailable = "/_systeme/503"
)

// SystemStatus maps each fixed body to the status it is served with.
var SystemStatus = map[string]int{
	SystemBadRequest:  400,
	SystemForbidden:   403,
	SystemNotFound:    404,
	SystemUnavailable: 503,
}

// maxIDLength bounds an id: one leading alphanumeric and up to 63 more.
const maxIDLength = 64

// IDGrammar is the grammar ValidID checks, as a regular expression, for
// documents and messages.
const IDGrammar = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}"

// errMalformed is returned for a request target the contract answers with 400.
var errMalformed = errors.New("malformed request target")

// CheckTarget validates a raw request-target, byte for byte, and returns it as
// a path when it is in origin form with no query, fragment, percent-encoding,
// empty, "." or ".." segment, trailing slash, or character outside RFC 3986's
// path characters. It says nothing of whether the path exists.
func CheckTarget(raw string) (string, error) {
	if len(raw) < 2 || raw[0] != '/' {
		return "", errMalformed
	}
	segmentStart := 1
	for i := 1; i <= len(raw); i++ {
		if i < len(raw) && raw[i] != '/' {
			if !isPathChar(raw[i]) {
				return "", errMalformed
			}
			continue
		}
		switch raw[segmentStart:i] {
		case "", ".", "..":
			return "", errMalformed
		}
		segmentStart = i + 1
	}
	return raw, nil
}

// isPathChar reports whether c may stand unencoded in a path segment: RFC
// 3986's pchar, without '%' since percent-encoding is refused outright.
func isPathChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}

// ValidID reports whether id matches IDGrammar.
func ValidID(id string) bool {
	if id == "" || len(id) > maxIDLength || !isAlnum(id[0]) {
		return false
	}
	for i := 1; i < len(id); i++ {
		if c := id[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// Reference is a parsed /<collection>/<id> path: a known collection and an
// id in IDGrammar. Only such paths can answer "existe": false. It holds the
// path it was parsed from and the track the parse found, so that it is
// comparable, usable as a map key, and gives its path and track back
// without another look. The zero Reference is no reference.
type Reference struct {
	path  string
	slash int    // the index in path of the slash before the id
	track *Track // the track whose collection it points into
}

// ParseReference parses path as /<collection>/<id>, for a collection of a
// registered track and an id in IDGrammar; ok is false for any other path.
func ParseReference(path string) (ref Reference, ok bool) {
	rest, found := strings.CutPrefix(path, "/")
	if !found {
		return Reference{}, false
	}
	for _, t := range Tracks {
		for _, c := range t.Collections {
			// "<collection>/" matched without building it for each candidate.
			if len(rest) > len(c) && rest[len(c)] == '/' && strings.HasPrefix(rest, c) {
				if ValidID(rest[len(c)+1:]) {
					return Reference{path: path, slash: 1 + len(c), track: t}, true
				}
			}
		}
	}
	return Reference{}, false
}

// Collection is the collection the reference points into ("listes/agrees").
func (r Reference) Collection() string {
	if r.path == "" {
		return ""
	}
	return r.path[1:r.slash]
}

// ID is the reference's id, the last segment of its path.
func (r Reference) ID() string {
	if r.path == "" {
		return ""
	}
	return r.path[r.slash+1:]
}

// Path is the canonical path the reference was parsed from.
func (r Reference) Path() string { return r.path }

// String is the reference's path.
func (r Reference) String() string { return r.path }

// isValid reports whether r is a parsed reference, not the zero Reference.
func (r Reference) isValid() bool { return r.path != "" }

// Track is the track whose collection the reference points into; nil for
// the zero Reference.
func (r Reference) Track() *Track { return r.track }

// CollectionOf returns the collection path points into, or "" when path is
// not a reference: for the many callers that ask only that.
func CollectionOf(path string) string {
	ref, _ := ParseReference(path)
	return ref.Collection()
}

// IsReference reports whether path is /<collection>/<id> in the grammar.
func IsReference(path string) bool {
	_, ok := ParseReference(path)
	return ok
}

// IsSystem reports whether path is one of the fixed bodies of the contract.
func IsSystem(path string) bool {
	_, ok := SystemStatus[path]
	return ok
}

// PathOf returns the canonical path of a file of either track's tree
// ("agrements/AGR-1.json" is "/agrements/AGR-1"), or an error naming the
// rule the file name breaks. Track.PathOf also checks the track.
func PathOf(file string) (string, error) {
	stem, ok := strings.CutSuffix(file, ".json")
	if !ok {
		return "", fmt.Errorf("%s: not a .json file", file)
	}
	path := "/" + stem
	switch {
	case IsRules(path), IsSystem(path), IsReference(path):
		return path, nil
	case strings.HasPrefix(path, systemPrefix):
		return "", fmt.Errorf("%s: not one of the fixed bodies 400, 403, 404, 503", file)
	default:
		return "", fmt.Errorf("%s: not a rules resource (%s) nor /<collection>/<id> with an id in %s", file, strings.Join(rulesPaths(), ", "), IDGrammar)
	}
}

// IsRules reports whether path is a track's single rules resource.
func IsRules(path string) bool {
	return slices.ContainsFunc(Tracks, func(t *Track) bool { return t.Rules == path })
}

func rulesPaths() []string {
	paths := make([]string, len(Tracks))
	for i, t := range Tracks {
		paths[i] = t.Rules
	}
	return paths
}

// FileOf returns the file of the tree that holds a canonical path.
func FileOf(path string) string {
	return strings.TrimPrefix(path, "/") + ".json"
}

// IsFileOf reports whether file is FileOf(path), without writing it.
func IsFileOf(file, path string) bool {
	name, isJSON := strings.CutSuffix(file, ".json")
	return isJSON && name == strings.TrimPrefix(path, "/")
}

// Outcome is what the contract answers for a request target that passed the
// secret gate, the method and body checks.
type Outcome int

const (
	// Malformed targets get the 400 body.
	Malformed Outcome = iota
	// Resource targets name a file of the tree: 200 with its bytes.
	Resource
	// AbsentReference targets are /<collection>/<id> with no file: 200, "existe": false.
	AbsentReference
	// NotFound targets are outside every collection: the 404 body.
	NotFound
)

// Classify decides what a raw request-target is answered with, given which
// paths are resources of the tree. It returns the checked path along with
// the outcome and, for an AbsentReference, the parsed reference, so that
// no caller parses the path again.
func Classify(rawTarget string, isResource func(path string) bool) (Outcome, string, Reference) {
	path, err := CheckTarget(rawTarget)
	if err != nil {
		return Malformed, "", Reference{}
	}
	if isResource(path) {
		return Resource, path, Reference{}
	}
	if ref, ok := ParseReference(path); ok {
		return AbsentReference, path, ref
	}
	return NotFound, path, Reference{}
}
