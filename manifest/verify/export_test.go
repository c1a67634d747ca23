package verify

// ReadTree is readTree, for the external tests of the tree reader.
var ReadTree = readTree
