// Package storagekey owns the storage key of a Kubernetes object: the name
// under which a client-go store (an informer's cache) keeps it, "namespace/name",
// or "name" alone for a cluster-scoped object. It is the key
// k8s.io/client-go/tools/cache.MetaNamespaceKeyFunc returns, and the API
// server's storage key without its resource prefix (/registry/pods/ns/name,
// /registry/nodes/name), so objects sorted by it come in the order the API
// server lists them.
//
// The package imports no other package of kubectl-informer, so that the
// engine (pkg/cache), the indexes (pkg/index), the expressions (pkg/expr)
// and the commands all name an object by the one key.
package storagekey

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
)

// Of returns obj's storage key: "namespace/name", or "name" for a
// cluster-scoped object (an empty namespace), as
// k8s.io/client-go/tools/cache.MetaNamespaceKeyFunc does for an object with
// metadata. It fails when obj has no object metadata.
func Of(obj any) (string, error) {
	a, err := meta.Accessor(obj)
	if err != nil {
		return "", fmt.Errorf("object has no meta: %w", err)
	}
	if ns := a.GetNamespace(); ns != "" {
		return ns + "/" + a.GetName(), nil
	}
	return a.GetName(), nil
}
