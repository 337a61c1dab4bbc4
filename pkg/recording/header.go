package recording

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Format is the value of the header's "format" field, which marks a file
// as a recording.
const Format = "kubectl-informer-recording"

// CurrentVersion is the format version this package writes and reads.
const CurrentVersion = 1

// maxTypes bounds the types a header may list.
const maxTypes = 10000

// Type is one recorded type: its REST mapping and what users call it.
type Type struct {
	Group      string   `json:"group,omitempty"`
	Version    string   `json:"version"`
	Resource   string   `json:"resource"`
	Kind       string   `json:"kind"`
	Namespaced bool     `json:"namespaced,omitempty"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	// BuiltIn says the type is one of Kubernetes' own (k8s.io/api), whose
	// objects decode into client-go's typed structs; a custom resource or
	// an aggregated API's type is not.
	BuiltIn bool `json:"builtIn,omitempty"`
}

// GroupVersionResource returns t's resource.
func (t Type) GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: t.Group, Version: t.Version, Resource: t.Resource}
}

// GroupVersionKind returns t's kind.
func (t Type) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: t.Group, Version: t.Version, Kind: t.Kind}
}

// Header says what a recording holds: when it started, from which server,
// the types (events name them by their index in Types), the namespaces
// (none for all namespaces) and the selectors the objects were listed
// with.
type Header struct {
	Format        string    `json:"format"`
	Version       int       `json:"version"`
	Started       time.Time `json:"started"`
	Server        string    `json:"server,omitempty"`
	Types         []Type    `json:"types"`
	Namespaces    []string  `json:"namespaces,omitempty"`
	LabelSelector string    `json:"labelSelector,omitempty"`
	FieldSelector string    `json:"fieldSelector,omitempty"`
}

// TypeOf returns the index in h.Types of obj's type, found by its
// apiVersion and kind, and false when no type or more than one matches.
func (h Header) TypeOf(obj *unstructured.Unstructured) (int, bool) {
	gvk := obj.GroupVersionKind()
	found := -1
	for i, t := range h.Types {
		if t.GroupVersionKind() == gvk {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	return found, found >= 0
}

// validate checks a header read from a file.
func (h Header) validate() error {
	if h.Format != Format {
		return fmt.Errorf("not a recording (format %q, want %q)", h.Format, Format)
	}
	if h.Version != CurrentVersion {
		return fmt.Errorf("recording format version %d, this build reads version %d", h.Version, CurrentVersion)
	}
	if len(h.Types) == 0 {
		return fmt.Errorf("the header lists no types")
	}
	if len(h.Types) > maxTypes {
		return fmt.Errorf("the header lists %d types, more than %d", len(h.Types), maxTypes)
	}
	for i, t := range h.Types {
		if t.Version == "" || t.Resource == "" || t.Kind == "" {
			return fmt.Errorf("type %d of the header has no version, resource or kind", i)
		}
	}
	return nil
}

// marshalHeader returns h as the first record, with its format and
// version set.
func marshalHeader(h Header) ([]byte, error) {
	h.Format = Format
	h.Version = CurrentVersion
	return json.Marshal(h)
}
