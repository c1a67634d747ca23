package main

import "runtime/debug"

// version is the module version the binary was built from, as Go records
// it: a tag, a pseudo-version, or "(devel)" for a build of a work tree.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return "proveit " + info.Main.Version
	}
	return "proveit (unknown version)"
}
