package pyjson

// AppendCompact appends v as Python's json.dumps(v, ensure_ascii=False)
// writes it, on one line: ", " and ": " separators, members in source
// order, every character but '"', '\\' and the C0 controls as raw UTF-8.
// It is the form a report shows a value in to people: "Hélène", never
// the canonical form's "H\u00e9l\u00e8ne", which is for hashing.
func AppendCompact(dst []byte, v Value) []byte {
	switch v := v.(type) {
	case Array:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendCompact(dst, e)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i, m := range v {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendPythonString(dst, m.Key)
			dst = append(dst, ": "...)
			dst = AppendCompact(dst, m.Value)
		}
		return append(dst, '}')
	}
	// A scalar is written on one line in either layout.
	return appendIndented(dst, v, 0)
}
