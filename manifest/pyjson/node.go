package pyjson

import "iter"

// Node is one value of a Document, read in place: a reader that keeps a few
// members of a large document takes them from its tokens, and builds no
// tree for the rest. A Node is valid until the document's next Read; the
// strings it returns are copies, kept after.
type Node struct {
	d *Document
	i int // the value's token; -1 for a member that is absent
}

// Root is the document's value.
func (d *Document) Root() Node { return Node{d, 0} }

// Exists reports whether the node is a value, not a member Get did not find.
func (n Node) Exists() bool { return n.i >= 0 }

func (n Node) kind() (kind, bool) {
	if n.i < 0 {
		return 0, false
	}
	return n.d.tokens[n.i].kind, true
}

// IsNull reports whether the node is null.
func (n Node) IsNull() bool { k, ok := n.kind(); return ok && k == kindNull }

// IsObject reports whether the node is an object.
func (n Node) IsObject() bool { k, ok := n.kind(); return ok && k == kindObject }

// IsArray reports whether the node is an array.
func (n Node) IsArray() bool { k, ok := n.kind(); return ok && k == kindArray }

// Len is the count of an object's members or an array's elements, 0 for
// any other node.
func (n Node) Len() int {
	if n.IsObject() || n.IsArray() {
		return int(n.d.tokens[n.i].start)
	}
	return 0
}

// Text is the node's string, if it is one.
func (n Node) Text() (string, bool) {
	if k, ok := n.kind(); !ok || k != kindString {
		return "", false
	}
	return string(n.d.text(n.i)), true
}

// Number is the node's number, if it is one.
func (n Node) Number() (Number, bool) {
	if k, ok := n.kind(); !ok || k != kindNumber {
		return "", false
	}
	return Number(n.d.text(n.i)), true
}

// Get is the value of an object's member key; a node that does not Exist
// when the object has no such member, or the node is not an object. It
// scans the members, as Object.Get does.
func (n Node) Get(key string) Node {
	if n.IsObject() {
		for k, v := range n.members() {
			if string(n.d.text(k)) == key {
				return Node{n.d, v}
			}
		}
	}
	return Node{n.d, -1}
}

// Members yields an object's members in source order, each key a copy.
func (n Node) Members() iter.Seq2[string, Node] {
	return func(yield func(string, Node) bool) {
		if !n.IsObject() {
			return
		}
		for k, v := range n.members() {
			if !yield(string(n.d.text(k)), Node{n.d, v}) {
				return
			}
		}
	}
}

// members yields the key token and the value token of each member.
func (n Node) members() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		next := n.i + 1
		for range n.d.tokens[n.i].start {
			if !yield(next, next+1) {
				return
			}
			next = n.d.next(next + 1)
		}
	}
}

// Elements yields an array's elements in order.
func (n Node) Elements() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		if !n.IsArray() {
			return
		}
		next := n.i + 1
		for range n.d.tokens[n.i].start {
			if !yield(Node{n.d, next}) {
				return
			}
			next = n.d.next(next)
		}
	}
}

// Value is the node as a tree of Values, as Parse would return it; nil
// for a member that is absent.
func (n Node) Value() Value {
	if n.i < 0 {
		return nil
	}
	v, _ := n.d.tree(n.i, false).valueAt(n.i)
	return v
}
