package diff

import (
	"encoding/json"
	"fmt"
)

// PatchOp is one operation of an RFC 6902 JSON Patch.
type PatchOp struct {
	// Op is "add", "remove" or "replace".
	Op string `json:"op"`
	// Path is an RFC 6901 JSON Pointer, with ~ escaped as ~0 and / as ~1.
	Path string `json:"path"`
	// Value is the value to add or replace with; nil means JSON null for
	// those operations, and nothing for "remove".
	Value interface{} `json:"value,omitempty"`
}

// MarshalJSON writes the operation with a "value" member for every
// operation but "remove", even when the value is null.
func (op PatchOp) MarshalJSON() ([]byte, error) {
	if op.Op == "remove" {
		return json.Marshal(struct {
			Op   string `json:"op"`
			Path string `json:"path"`
		}{op.Op, op.Path})
	}
	b, err := json.Marshal(struct {
		Op    string      `json:"op"`
		Path  string      `json:"path"`
		Value interface{} `json:"value"`
	}{op.Op, op.Path, op.Value})
	if err != nil {
		return nil, fmt.Errorf("encoding %s operation at %q: %w", op.Op, op.Path, err)
	}
	return b, nil
}

// JSONPatch returns an RFC 6902 JSON Patch that turns old into new, leaving
// out the changes opts leaves out: applied to old, it yields the new object
// with the Ignore paths (and, if Only is set, everything outside the Only
// paths) as they are in old. Options.Redact does not apply.
//
// Lists are compared by index, never by name: extra elements at the end are
// removed from the last one down, or added one by one after the last. The
// operations are add, remove and replace, ordered so that they apply one after
// the other; maps are visited in key order, so the patch is deterministic.
// The values may share structure with new. For identical objects the patch is
// empty (not nil, so it encodes as []).
func JSONPatch(old, new map[string]interface{}, opts Options) []PatchOp {
	w := walker{patch: true}
	w.init(opts, false)
	root := w.rootState()
	w.node(0, old, true, new, true, root)
	if ops := w.sortedOps(); ops != nil {
		return ops
	}
	return []PatchOp{}
}
