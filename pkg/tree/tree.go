// Package tree builds the ownership trees `kubectl informer tree` prints: an object and, recursively,
// the objects whose ownerReferences name it (Down), or an object's chain of controllers up to the
// top-most one (Up), and draws them as kubectl-tree does (Lines).
//
// It reads caches only through the small Dependents interface the caller provides, so it knows
// nothing of informers, cobra or printing, and it does no I/O. Objects are the caches' own and are
// never modified.
package tree

import (
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// maxDepth bounds a tree: ownerReferences written by hand can form a cycle, which the walk also
// breaks by UID.
const maxDepth = 32

// Object is a cached object with the type it was cached as.
type Object struct {
	// Resource is the object's resource, "deployments.apps"; empty when unknown.
	Resource schema.GroupResource
	// Kind is the object's kind, "Deployment".
	Kind string
	// Namespace and Name identify the object; they are set even when Obj is nil.
	Namespace, Name string
	// Obj is the cached object (typed, unstructured or metadata-only), or nil for an owner known
	// only from a reference, because its type could not be read or it is not cached.
	Obj interface{}
}

// NewObject returns the Object for a cached obj of resource and kind.
func NewObject(resource schema.GroupResource, kind string, obj interface{}) Object {
	o := Object{Resource: resource, Kind: kind, Obj: obj}
	if m, err := meta.Accessor(obj); err == nil {
		o.Namespace, o.Name = m.GetNamespace(), m.GetName()
	}
	return o
}

// UID returns the object's UID, or "" when Obj is nil.
func (o Object) UID() types.UID {
	if m, err := meta.Accessor(o.Obj); err == nil {
		return m.GetUID()
	}
	return ""
}

// Dependents finds the objects to list under owner: the cached objects that have an
// ownerReference to its UID, in the types the tree follows, and any other edge the
// implementation draws (the pods a Service selects). Implementations read caches, typically an
// owner-uid index of each followed type.
type Dependents interface {
	Dependents(owner Object) ([]Object, error)
}

// Node is one object of a tree with the objects under it, ordered by kind, namespace and name.
type Node struct {
	Object
	Children []*Node
	// Relation names the edge from the parent in a references tree (RefsTree): "uses
	// (envFrom)", "used by (volume)"; empty in ownership trees and for a root.
	Relation string
}

// Down returns the tree of root and its dependents, recursively, as deps finds them. An object
// reached a second time (a cycle, or an object with two owners in the tree) is listed under the
// first owner only. Depth is bounded by maxDepth.
func Down(root Object, deps Dependents) (*Node, error) {
	seen := map[types.UID]bool{}
	return down(root, deps, seen, 0)
}

func down(obj Object, deps Dependents, seen map[types.UID]bool, depth int) (*Node, error) {
	n := &Node{Object: obj}
	uid := obj.UID()
	if uid == "" || seen[uid] || depth >= maxDepth {
		return n, nil
	}
	seen[uid] = true
	children, err := deps.Dependents(obj)
	if err != nil {
		return nil, err
	}
	sortObjects(children)
	for _, c := range children {
		if cu := c.UID(); cu != "" && seen[cu] {
			continue
		}
		child, err := down(c, deps, seen, depth+1)
		if err != nil {
			return nil, err
		}
		n.Children = append(n.Children, child)
	}
	return n, nil
}

// Up returns chain as a tree, top-most first: chain[0] is the object the walk started from and
// each next element its controller, as index.OwnerChain walks them. The returned node is the
// top-most controller, and the start object is its only leaf.
func Up(chain []Object) *Node {
	var n *Node
	for _, obj := range chain {
		parent := &Node{Object: obj}
		if n != nil {
			parent.Children = []*Node{n}
		}
		n = parent
	}
	return n
}

// sortObjects orders objects by kind, namespace and name.
func sortObjects(objs []Object) {
	sort.SliceStable(objs, func(i, j int) bool {
		a, b := objs[i], objs[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
}

// Line is one node of a drawn tree with the prefix drawn before its name.
type Line struct {
	*Node
	// Prefix is "" for a root, then "├─" or "└─" after "│ " or "  " for each level above, as
	// kubectl-tree draws it.
	Prefix string
	// Depth is 0 for a root.
	Depth int
}

// Lines returns the nodes of roots in depth-first order, each root followed by its subtree, with
// the prefix that draws the tree.
func Lines(roots []*Node) []Line {
	var lines []Line
	for _, r := range roots {
		lines = append(lines, Line{Node: r})
		lines = appendChildren(lines, r, "", 1)
	}
	return lines
}

func appendChildren(lines []Line, n *Node, indent string, depth int) []Line {
	for i, c := range n.Children {
		last := i == len(n.Children)-1
		branch, next := "├─", "│ "
		if last {
			branch, next = "└─", "  "
		}
		lines = append(lines, Line{Node: c, Prefix: indent + branch, Depth: depth})
		lines = appendChildren(lines, c, indent+next, depth+1)
	}
	return lines
}
