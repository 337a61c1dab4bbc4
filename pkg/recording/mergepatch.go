package recording

import "reflect"

// The merge patches of this file work on JSON values as
// k8s.io/apimachinery/pkg/util/json decodes them: map[string]interface{},
// []interface{}, string, int64, float64, bool and nil.

// createMergePatch returns the JSON merge patch (RFC 7386) that turns prev
// into cur, and whether applying it to prev gives exactly cur. It does not
// when cur holds a null in a place the patch sets (a merge patch can only
// remove a field, never set it to null); the caller then stores cur whole.
func createMergePatch(prev, cur map[string]interface{}) (patch map[string]interface{}, exact bool) {
	patch = map[string]interface{}{}
	exact = true
	for k := range prev {
		if _, ok := cur[k]; !ok {
			patch[k] = nil
		}
	}
	for k, cv := range cur {
		pv, ok := prev[k]
		pm, pIsMap := pv.(map[string]interface{})
		cm, cIsMap := cv.(map[string]interface{})
		switch {
		case ok && pIsMap && cIsMap:
			sub, subExact := createMergePatch(pm, cm)
			if !subExact {
				exact = false
			}
			if len(sub) > 0 {
				patch[k] = sub
			}
		case ok && reflect.DeepEqual(pv, cv):
		default:
			if !settable(cv) {
				exact = false
			}
			patch[k] = cv
		}
	}
	return patch, exact
}

// settable reports whether a merge patch can set a field to v: not when v
// is null or is an object that holds a null in its objects (applying the
// patch drops those).
func settable(v interface{}) bool {
	switch v := v.(type) {
	case nil:
		return false
	case map[string]interface{}:
		for _, e := range v {
			if !settable(e) {
				return false
			}
		}
	}
	return true
}

// applyMergePatch applies patch to target as RFC 7386 says and returns the
// result. It may reuse and modify target and patch.
func applyMergePatch(target, patch interface{}) interface{} {
	pm, ok := patch.(map[string]interface{})
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]interface{})
	if !ok {
		tm = map[string]interface{}{}
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = applyMergePatch(tm[k], v)
	}
	return tm
}
