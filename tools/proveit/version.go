package main

import proveitcorpus "github.com/arkforge/proveit-corpus"

// version names the module version the binary was built from
// (proveitcorpus.Version: the one `make build` stamps, else Go's record).
func version() string {
	return "proveit " + proveitcorpus.Version()
}
