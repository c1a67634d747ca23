package corpus

// AbsentBody is the body served for a reference into a collection that has no
// file: deterministic, the same path always giving the same bytes. path must
// satisfy IsReference, whose grammar leaves nothing to escape in JSON.
func AbsentBody(path string) []byte {
	const (
		head = "{\n  \"ressource\": \""
		tail = "\",\n  \"existe\": false,\n" +
			"  \"message\": \"Aucune ressource n'existe à ce chemin dans le corpus figé de la saison.\"\n}\n"
	)
	body := make([]byte, 0, len(head)+len(path)+len(tail))
	body = append(body, head...)
	body = append(body, path...)
	return append(body, tail...)
}
