//go:build !unix

package tree

// openNonblock is nothing where a file's open never waits for a writer.
const openNonblock = 0
