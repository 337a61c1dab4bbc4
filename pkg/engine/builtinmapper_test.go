package engine

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestStableBuiltinsAreTheSchemesPreferred checks each stable built-in
// against client-go's scheme: its kind is known at its version, and no
// higher version of its group holds the kind (the API server prefers the
// highest).
func TestStableBuiltinsAreTheSchemesPreferred(t *testing.T) {
	for _, b := range stableBuiltins {
		if b.group == "apiextensions.k8s.io" {
			continue // not in client-go's scheme
		}
		if !scheme.Scheme.Recognizes(b.gvk()) {
			t.Errorf("%s: the scheme does not know %v", b.resource, b.gvk())
			continue
		}
		for _, gv := range scheme.Scheme.PrioritizedVersionsForGroup(b.group) {
			if scheme.Scheme.Recognizes(gv.WithKind(b.kind)) && version.CompareKubeAwareVersionStrings(gv.Version, b.version) > 0 {
				t.Errorf("%s: version %s, but the scheme holds %s at %s", b.resource, b.version, b.kind, gv.Version)
			}
		}
	}
}

// notFound is a mapper that maps nothing, and counts what it was asked.
type notFound struct{ asked *int }

func (m notFound) KindFor(r schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	*m.asked++
	return schema.GroupVersionKind{}, &meta.NoResourceMatchError{PartialResource: r}
}
func (m notFound) KindsFor(r schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	*m.asked++
	return nil, &meta.NoResourceMatchError{PartialResource: r}
}
func (m notFound) ResourceFor(r schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	*m.asked++
	return schema.GroupVersionResource{}, &meta.NoResourceMatchError{PartialResource: r}
}
func (m notFound) ResourcesFor(r schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	*m.asked++
	return nil, &meta.NoResourceMatchError{PartialResource: r}
}
func (m notFound) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	*m.asked++
	return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
}
func (m notFound) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	*m.asked++
	return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
}
func (m notFound) ResourceSingularizer(resource string) (string, error) {
	*m.asked++
	return "", &meta.NoResourceMatchError{PartialResource: schema.GroupVersionResource{Resource: resource}}
}

func TestBuiltinsFirst(t *testing.T) {
	tests := []struct {
		arg       string
		want      string // resource, kind, scope
		discovery bool   // discovery answers
		// mayAsk: discovery is asked first, as kubectl asks it, whether
		// "events.events.k8s.io" is resource events of version "events" in
		// group k8s.io.
		mayAsk bool
	}{
		{arg: "pods", want: "/v1, Resource=pods /v1, Kind=Pod namespace"},
		{arg: "po", want: "/v1, Resource=pods /v1, Kind=Pod namespace"},
		{arg: "pod", want: "/v1, Resource=pods /v1, Kind=Pod namespace"},
		{arg: "Pod", want: "/v1, Resource=pods /v1, Kind=Pod namespace"},
		{arg: "pods.v1.", want: "/v1, Resource=pods /v1, Kind=Pod namespace"},
		{arg: "no", want: "/v1, Resource=nodes /v1, Kind=Node root"},
		{arg: "events", want: "/v1, Resource=events /v1, Kind=Event namespace"},
		{arg: "events.events.k8s.io", want: "events.k8s.io/v1, Resource=events events.k8s.io/v1, Kind=Event namespace", mayAsk: true},
		{arg: "deploy", want: "apps/v1, Resource=deployments apps/v1, Kind=Deployment namespace"},
		{arg: "deploy.apps", want: "apps/v1, Resource=deployments apps/v1, Kind=Deployment namespace"},
		{arg: "deployments.v1.apps", want: "apps/v1, Resource=deployments apps/v1, Kind=Deployment namespace"},
		{arg: "hpa", want: "autoscaling/v2, Resource=horizontalpodautoscalers autoscaling/v2, Kind=HorizontalPodAutoscaler namespace"},
		{arg: "horizontalpodautoscalers.v1.autoscaling", discovery: true},
		{arg: "deployments.v1beta1.apps", discovery: true},
		{arg: "widgets", discovery: true},
		{arg: "wg", discovery: true},
		{arg: "deploy.example.com", discovery: true},
		{arg: "ev", discovery: true},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			asked := 0
			mappings, err := Resolve(BuiltinsFirst(notFound{&asked}), []string{tt.arg})
			if tt.discovery {
				if err == nil || asked == 0 {
					t.Errorf("Resolve(%q) = %v, %v after %d questions to discovery, want discovery's answer (an error)", tt.arg, mappings, err, asked)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.arg, err)
			}
			m := mappings[0]
			if got := m.Resource.String() + " " + m.GroupVersionKind.String() + " " + string(m.Scope.Name()); got != tt.want || (asked != 0 && !tt.mayAsk) {
				t.Errorf("Resolve(%q) = %s after %d questions to discovery, want %s and none", tt.arg, got, asked, tt.want)
			}
		})
	}
}
