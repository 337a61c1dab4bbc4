package printing

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// This file holds how every command names types and objects in its output.

// KindName is how a type is named in tables: "pod", "deployment.apps".
func KindName(t *engine.Type) string {
	gk := t.Mapping.GroupVersionKind.GroupKind()
	name := strings.ToLower(gk.Kind)
	if gk.Group != "" {
		name += "." + gk.Group
	}
	return name
}

// ObjectName is obj's metadata.name, "" when obj has no metadata.
func ObjectName(obj interface{}) string {
	if a, err := meta.Accessor(obj); err == nil {
		return a.GetName()
	}
	return ""
}

// ObjectNamespace is obj's metadata.namespace: "" for a cluster-scoped
// object, or when obj has no metadata.
func ObjectNamespace(obj interface{}) string {
	if a, err := meta.Accessor(obj); err == nil {
		return a.GetNamespace()
	}
	return ""
}

// JoinOrNone is a table cell of several values: joined by commas, or
// "<none>" when there is none, as kubectl prints.
func JoinOrNone(values []string) string {
	if len(values) == 0 {
		return "<none>"
	}
	return strings.Join(values, ",")
}
