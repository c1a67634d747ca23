//go:build !linux

package index

// swapIn puts the folder built in site's place: two renames, the
// previous Index moved aside first (swapInTwoSteps).
func swapIn(built, site string) error { return swapInTwoSteps(built, site) }
