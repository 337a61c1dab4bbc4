package fieldmanagers

// Labels Cause returns.
const (
	// DeletionRequested: metadata.deletionTimestamp was set or moved
	// earlier (a second DELETE with a shorter grace period), which only a
	// DELETE does, and which leaves no managedFields entry.
	DeletionRequested = "deletion requested"
	// BoundByBinding: a pod's spec.nodeName was set, which on an existing
	// pod only the pods/binding subresource does (kube-scheduler, or another
	// scheduler), and which leaves no managedFields entry.
	BoundByBinding = "bound by pods/binding"
)

// Cause returns a short, true label for a change the server records no
// owner for but that is certain from the change itself, or "" when there is
// none: DeletionRequested when new has a metadata.deletionTimestamp that old
// has not, or another one; for a pod (pod set), BoundByBinding when old has no spec.nodeName
// and new has one. old and new are the two versions as JSON-like maps, which
// may hold only the parts that differ.
func Cause(old, new map[string]interface{}, pod bool) string {
	if ts := nested(new, "metadata", "deletionTimestamp"); ts != nil && !equal(ts, nested(old, "metadata", "deletionTimestamp")) {
		return DeletionRequested
	}
	if pod && isEmpty(nested(old, "spec", "nodeName")) && !isEmpty(nested(new, "spec", "nodeName")) {
		return BoundByBinding
	}
	return ""
}

func nested(obj map[string]interface{}, keys ...string) interface{} {
	var v interface{} = obj
	for _, k := range keys {
		m, ok := v.(map[string]interface{})
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func isEmpty(v interface{}) bool {
	return v == nil || v == ""
}
