package mcp

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// secretResource is the core Secret resource.
var secretResource = schema.GroupResource{Resource: "secrets"}

// secretsAsMetadata is a source whose Secrets are always fed as metadata
// only (PartialObjectMetadata), whatever the engine asks: their data and
// stringData are never requested, so no tool can return them, whatever
// columns, filter or sums a call names.
type secretsAsMetadata struct {
	engine.Source
}

// Feed returns the feed of the wrapped source, metadata-only for Secrets.
func (s secretsAsMetadata) Feed(mapping *meta.RESTMapping, namespace string, full bool) (engine.Feed, error) {
	if mapping.Resource.GroupResource() == secretResource {
		full = false
	}
	return s.Source.Feed(mapping, namespace, full)
}
