package tree

import "sort"

// maxRefsDepth bounds each direction of a references tree: a pod uses a claim, which uses a
// volume, which uses a class; a Secret is used by a ServiceAccount, which is used by pods and
// bindings.
const maxRefsDepth = 4

// Edge is an object at the other end of a reference, with how it refers or is referred to: the
// field of the referring object ("envFrom", "volume", "subject").
type Edge struct {
	Object
	Field string
}

// Refs finds the references of objects for RefsTree. Implementations read caches.
type Refs interface {
	// Uses returns the objects obj names in its own spec (not through another object), with the
	// field that names each.
	Uses(obj Object) ([]Edge, error)
	// UsedBy returns the objects whose spec names obj, with the field that names it.
	UsedBy(obj Object) ([]Edge, error)
}

// RefsTree returns the references tree of root: the objects root uses, each marked "uses
// (FIELD)", and the objects that use root, each marked "used by (FIELD)", each followed further
// in its own direction only (what a used object uses; what uses a user), so that a
// PersistentVolume lists its claims and, under each, the pods that mount it. An object is
// listed once per direction and path; each direction is at most maxRefsDepth deep. Children
// are ordered uses first, then by kind, namespace and name.
func RefsTree(root Object, refs Refs) (*Node, error) {
	n := &Node{Object: root}
	uses, err := refsDown(root, refs, true, map[string]bool{refKey(root): true}, 1)
	if err != nil {
		return nil, err
	}
	usedBy, err := refsDown(root, refs, false, map[string]bool{refKey(root): true}, 1)
	if err != nil {
		return nil, err
	}
	n.Children = append(uses, usedBy...)
	return n, nil
}

// refsDown returns the nodes reached from obj in one direction, recursively. seen holds the keys
// of the path from the root, which breaks cycles.
func refsDown(obj Object, refs Refs, uses bool, seen map[string]bool, depth int) ([]*Node, error) {
	if depth > maxRefsDepth {
		return nil, nil
	}
	var edges []Edge
	var err error
	label := "used by"
	if uses {
		label = "uses"
		edges, err = refs.Uses(obj)
	} else {
		edges, err = refs.UsedBy(obj)
	}
	if err != nil {
		return nil, err
	}
	sort.SliceStable(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Field < b.Field
	})
	var out []*Node
	for i := 0; i < len(edges); i++ {
		e := edges[i]
		fields := e.Field
		// One node per object: an object named by several fields lists them all.
		for i+1 < len(edges) && refKey(edges[i+1].Object) == refKey(e.Object) {
			i++
			fields += ", " + edges[i].Field
		}
		key := refKey(e.Object)
		if seen[key] {
			continue
		}
		n := &Node{Object: e.Object, Relation: label + " (" + fields + ")"}
		seen[key] = true
		children, err := refsDown(e.Object, refs, uses, seen, depth+1)
		delete(seen, key)
		if err != nil {
			return nil, err
		}
		n.Children = children
		out = append(out, n)
	}
	return out, nil
}

// refKey identifies an object of a references tree by kind, namespace and name.
func refKey(o Object) string { return o.Kind + "/" + o.Namespace + "/" + o.Name }
