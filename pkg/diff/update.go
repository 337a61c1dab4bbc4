package diff

import "io"

// Update is one update of an object: its two versions as the maps the
// package compares, and what changed between them in what one Options value
// lets through. Each part (whether anything changed, the changes, the JSON
// Patch, the projections) is computed the first time it is asked for and
// then kept, so the readers of one update (a check, a writer, an
// attribution) share one computation of each, and the options are applied
// by the Update alone.
//
// An Update is for one goroutine at a time. It shares structure with the
// objects it was made from (see UpdateMaps), and its parts share structure
// with each other: callers must mutate none of them.
type Update struct {
	old, new map[string]interface{}
	opts     Options

	changed      bool
	changedKnown bool
	changes      []Change
	changesKnown bool
	patch        []PatchOp // nil until computed: JSONPatch never returns nil
	projOld      map[string]interface{}
	projNew      map[string]interface{}
	projKnown    bool
}

// NewUpdate returns the update from oldObj to newObj, unstructured or typed
// objects of one type, seen through opts. Its maps are UpdateMaps(oldObj,
// newObj, whole): set whole when the update is to be written with
// WriteUnified, which shows unchanged lines for context. NewUpdate fails
// where UpdateMaps fails, and never mutates the objects.
func NewUpdate(oldObj, newObj interface{}, opts Options, whole bool) (*Update, error) {
	old, new, err := UpdateMaps(oldObj, newObj, whole)
	if err != nil {
		return nil, err
	}
	return &Update{old: old, new: new, opts: opts}, nil
}

// Changed reports whether the update changes anything its options let
// through, as Changed does: list elements matched by name, so reordering
// them is no change. It reads the changes when they were computed, and
// otherwise walks the maps only up to the first change.
func (u *Update) Changed() bool {
	switch {
	case u.changesKnown:
		return len(u.changes) > 0
	case !u.changedKnown:
		u.changed, u.changedKnown = Changed(u.old, u.new, u.opts), true
	}
	return u.changed
}

// Changes returns the changes of the update as Compare returns them, with
// the values under Options.Redact paths hidden.
func (u *Update) Changes() []Change {
	if !u.changesKnown {
		u.changes, u.changesKnown = Compare(u.old, u.new, u.opts), true
	}
	return u.changes
}

// Patch returns the update as JSONPatch returns it: list elements by index,
// so a reordering is a change; empty, not nil, when nothing changed.
func (u *Update) Patch() []PatchOp {
	if u.patch == nil {
		u.patch = JSONPatch(u.old, u.new, u.opts)
	}
	return u.patch
}

// Projected returns the two versions with only what the options let
// through, as Project returns each: what a reader that walks the maps
// itself (an attribution to field managers, say) should see. Like the maps
// of UpdateMaps, they may hold only the parts that differ.
func (u *Update) Projected() (old, new map[string]interface{}) {
	if !u.projKnown {
		u.projOld, u.projNew, u.projKnown = Project(u.old, u.opts), Project(u.new, u.opts), true
	}
	return u.projOld, u.projNew
}

// WriteUnified writes the update to w as Unified writes the two versions
// with its options; the update must have been made whole (see NewUpdate)
// for the context lines to be there.
func (u *Update) WriteUnified(w io.Writer, oldLabel, newLabel string, context int, color bool) error {
	old, new := u.Projected()
	return unified(w, oldLabel, newLabel, old, new, u.opts.Redact, context, color)
}
