package object

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
)

// Key returns obj's storage key, the name under which a client-go store (an
// informer's cache) keeps it and the API server's storage key without its
// resource prefix (/registry/pods/ns/name, /registry/nodes/name), so that
// objects sorted by it come in the order the API server lists them: "namespace/name", or "name" for a
// cluster-scoped object (an empty namespace), as
// k8s.io/client-go/tools/cache.MetaNamespaceKeyFunc does for an object with
// metadata. It fails when obj has no object metadata.
func Key(obj any) (string, error) {
	a, err := meta.Accessor(obj)
	if err != nil {
		return "", fmt.Errorf("object has no meta: %w", err)
	}
	if ns := a.GetNamespace(); ns != "" {
		return ns + "/" + a.GetName(), nil
	}
	return a.GetName(), nil
}
