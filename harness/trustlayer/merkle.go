package trustlayer

import (
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// tree is an append-only RFC 6962 Merkle tree: the commitments of one proof,
// a batch of chain hashes, and the Rekor log are all one. The library's
// compact range computes every node; the tree only keeps them, so that
// inclusion proofs can be cut for any leaf against the current size.
type tree struct {
	rng   *compact.Range
	nodes [][][]byte // nodes[level][index], every node the range completed
}

var rangeFactory = &compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}

func newTree() *tree {
	return &tree{rng: rangeFactory.NewEmptyRange(0)}
}

// appendLeaf appends a leaf hash (already LeafHash'd) and returns its index.
func (t *tree) appendLeaf(leafHash []byte) uint64 {
	index := t.rng.End()
	// Append fails only on a corrupted range, which this type never builds.
	if err := t.rng.Append(leafHash, t.visit); err != nil {
		panic("trustlayer: " + err.Error())
	}
	return index
}

func (t *tree) visit(id compact.NodeID, hash []byte) {
	for uint(len(t.nodes)) <= id.Level {
		t.nodes = append(t.nodes, nil)
	}
	row := t.nodes[id.Level]
	for uint64(len(row)) <= id.Index {
		row = append(row, nil)
	}
	row[id.Index] = hash
	t.nodes[id.Level] = row
}

func (t *tree) size() uint64 { return t.rng.End() }

// root is the tree's root hash; the tree must not be empty.
func (t *tree) root() []byte {
	h, err := t.rng.GetRootHash(nil)
	if err != nil || h == nil {
		panic("trustlayer: the root of an empty tree")
	}
	return h
}

// inclusion is the audit path of leaf index in the tree's current size,
// bottom-up, as RFC 6962 PATH defines it.
func (t *tree) inclusion(index uint64) [][]byte {
	nodes, err := proof.Inclusion(index, t.size())
	if err != nil {
		panic("trustlayer: " + err.Error())
	}
	hashes := make([][]byte, len(nodes.IDs))
	for i, id := range nodes.IDs {
		hashes[i] = t.nodes[id.Level][id.Index]
	}
	path, err := nodes.Rehash(hashes, rfc6962.DefaultHasher.HashChildren)
	if err != nil {
		panic("trustlayer: " + err.Error())
	}
	return path
}

// leafHash is RFC 6962's SHA-256(0x00 || data).
func leafHash(data []byte) []byte { return rfc6962.DefaultHasher.HashLeaf(data) }
