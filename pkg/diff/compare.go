package diff

import "strconv"

// Options control which parts of two objects are compared. The zero value
// compares everything.
type Options struct {
	// Ignore leaves out changes at or under these paths.
	Ignore []Path
	// Only, if not empty, leaves out every change that is not at or under one
	// of these paths.
	Only []Path
	// Redact hides the values of changes at or under these paths, such as a
	// Secret's data and stringData: Compare still reports the change, with
	// Redacted set and no values (as does a change to a map or list that
	// holds such a path), and Unified prints "(hidden)" in place of each
	// value. JSONPatch ignores Redact.
	Redact []Path
}

// DefaultIgnore returns the bookkeeping paths the API server updates on
// writes, which are noise in a diff: metadata.managedFields,
// metadata.resourceVersion and metadata.generation. It returns a new slice
// on every call, so callers may append to it.
func DefaultIgnore() []Path {
	return []Path{
		{segs: []segment{{kind: segKey, key: "metadata"}, {kind: segKey, key: "managedFields"}}},
		{segs: []segment{{kind: segKey, key: "metadata"}, {kind: segKey, key: "resourceVersion"}}},
		{segs: []segment{{kind: segKey, key: "metadata"}, {kind: segKey, key: "generation"}}},
	}
}

// Op says what happened at the path of a Change.
type Op int

const (
	// Added means the path exists only in the new object.
	Added Op = iota + 1
	// Removed means the path exists only in the old object.
	Removed
	// Modified means the path holds different values in the two objects.
	// (It is not called Changed because that name is taken by the function.)
	Modified
)

// String returns "added", "removed" or "modified".
func (op Op) String() string {
	switch op {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Modified:
		return "modified"
	}
	return "Op(" + strconv.Itoa(int(op)) + ")"
}

// Symbol returns the one-character marker WriteCompact prints for op: "+",
// "-" or "~" ("?" for an unknown Op).
func (op Op) Symbol() string {
	switch op {
	case Added:
		return "+"
	case Removed:
		return "-"
	case Modified:
		return "~"
	}
	return "?"
}

// Change is one changed leaf, or a whole map or list added or removed.
type Change struct {
	// Path is the display path of the change, such as spec.replicas,
	// spec.containers[name=web].image or metadata.labels["app.kubernetes.io/name"].
	// It is safe to print and parses back with ParsePath to a Path that
	// matches this change.
	Path string
	// Op says whether the path was added, removed or modified.
	Op Op
	// Old and New are the values on each side; the absent side is nil (as is a
	// side that holds JSON null: Op tells them apart). Both are nil when
	// Redacted is set. They may share structure with the compared objects.
	Old, New interface{}
	// Redacted is set when the path is at or under an Options.Redact path.
	Redacted bool
}

// Compare returns the changes that turn old into new, honouring opts.
//
// Maps are compared key by key, and the changes come sorted by path, map keys
// in byte order. Lists whose elements are all maps with a unique string or
// number in one of the fields name, type, key, uid, ip, containerPort,
// devicePath or mountPath (tried in that order; the same field in both lists)
// are matched by that field, so reordering such a list is not a change and its
// changes read like spec.containers[name=web].image; other lists are compared
// by index, with extra elements at the end reported one by one as added or
// removed. A map or list that exists on one side only is one change at its
// root. A key holding null differs from a missing key (the change is Added or
// Removed with a nil value).
//
// Compare never mutates old or new; the values in the changes may share
// structure with them.
func Compare(old, new map[string]interface{}, opts Options) []Change {
	w := walker{named: true}
	w.init(opts, true)
	root := w.rootState()
	w.node(0, old, true, new, true, root)
	return w.sortedChanges()
}

// Changed reports whether Compare(old, new, opts) would return any change. It
// stops at the first change and builds no paths, so it is cheaper than
// Compare for deciding whether an update is worth printing.
func Changed(old, new map[string]interface{}, opts Options) bool {
	w := walker{named: true, stop: true}
	w.init(opts, false)
	root := w.rootState()
	w.node(0, old, true, new, true, root)
	return w.found
}
