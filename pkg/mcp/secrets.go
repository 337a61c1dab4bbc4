package mcp

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// secretResource is the core Secret resource.
var secretResource = schema.GroupResource{Resource: "secrets"}

// valuelessSecrets is a source whose Secrets have the values of their data
// and stringData emptied as they are decoded, before any informer, index
// or printer sees them: the key names stay (so kubectl's DATA column
// counts true), the values never reach a cache, so no tool can return
// them, whatever columns, filter, sums or index a call names.
type valuelessSecrets struct {
	engine.Source
}

// Feed returns the feed of the wrapped source, its Secrets valueless.
func (s valuelessSecrets) Feed(mapping *meta.RESTMapping, namespace string, full bool) (engine.Feed, error) {
	feed, err := s.Source.Feed(mapping, namespace, full)
	if err != nil || mapping.Resource.GroupResource() != secretResource {
		return feed, err
	}
	feed.ListerWatcherWithContext = valuelessListWatch{next: feed.ListerWatcherWithContext}
	return feed, nil
}

// valuelessListWatch empties Secret values in what next lists and
// watches.
type valuelessListWatch struct {
	next interface {
		ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)
		WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error)
	}
}

func (l valuelessListWatch) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	list, err := l.next.ListWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	// Any list form: typed, unstructured, or a warm cache's list of
	// objects.
	if err := meta.EachListItem(list, func(obj runtime.Object) error {
		emptySecretValues(obj)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("emptying the values of listed Secrets: %w", err)
	}
	return list, nil
}

func (l valuelessListWatch) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	w, err := l.next.WatchWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		emptySecretValues(ev.Object)
		return ev, true
	}), nil
}

// emptySecretValues empties the values of obj's data and stringData when
// obj is a Secret, typed or unstructured; other objects are left alone.
func emptySecretValues(obj any) {
	switch s := obj.(type) {
	case *corev1.Secret:
		for k := range s.Data {
			s.Data[k] = nil
		}
		for k := range s.StringData {
			s.StringData[k] = ""
		}
	case *unstructured.Unstructured:
		for _, field := range []string{"data", "stringData"} {
			if m, ok := s.Object[field].(map[string]any); ok {
				for k := range m {
					m[k] = ""
				}
			}
		}
	}
}
