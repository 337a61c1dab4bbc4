package cache

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

// missingIndexers leaves out indexers the informer already has: every
// informer starts with client-go's "namespace" index, which indexes the same
// value as ours, and types naming the same resource share an informer.
func missingIndexers(informer toolscache.SharedIndexInformer, indexers toolscache.Indexers) toolscache.Indexers {
	existing := informer.GetIndexer().GetIndexers()
	missing := toolscache.Indexers{}
	for name, fn := range indexers {
		if _, ok := existing[name]; !ok {
			missing[name] = fn
		}
	}
	return missing
}

type informerKey struct {
	namespace string
	gvr       schema.GroupVersionResource
}

// informerFor returns the informer of mapping's resource in namespace (""
// for all): metadata-only unless cfg.FullObjects, typed (protobuf, Go types)
// for built-in types, dynamic (JSON, unstructured) for the others. They are
// the informers client-go's factories would build, without linking the
// factory packages' informer for every built-in type.
func (e *Engine) informerFor(clients *Clients, mapping *meta.RESTMapping, namespace string) (InformerKind, toolscache.SharedIndexInformer, error) {
	gvr := mapping.Resource
	var (
		kind    InformerKind
		source  listerWatcher
		example runtime.Object
	)
	switch {
	case !e.cfg.FullObjects:
		kind, example = Metadata, &metav1.PartialObjectMetadata{}
		source = clientListerWatcher[*metav1.PartialObjectMetadataList]{clients.Metadata.Resource(gvr).Namespace(namespace)}
	case !e.cfg.ForceDynamic && clients.Typed != nil && clients.Typed.Serves(mapping.GroupVersionKind):
		var err error
		if source, example, err = clients.Typed.listerWatcher(mapping, namespace); err != nil {
			return 0, nil, err
		}
		kind = Typed
	default:
		kind, example = Dynamic, &unstructured.Unstructured{}
		source = clientListerWatcher[*unstructured.UnstructuredList]{clients.Dynamic.Resource(gvr).Namespace(namespace)}
	}
	key := informerKey{namespace: namespace, gvr: gvr}
	if informer, ok := e.informers[key]; ok {
		return kind, informer, nil
	}
	tweak := func(opts *metav1.ListOptions) {
		opts.LabelSelector = e.cfg.LabelSelector
		opts.FieldSelector = e.cfg.FieldSelector
	}
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			ctx = withRequestOptions(ctx, &e.requests)
			tweak(&opts)
			return source.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			ctx = withRequestOptions(ctx, &e.requests)
			tweak(&opts)
			return source.Watch(ctx, opts)
		},
	}
	informer := toolscache.NewSharedIndexInformerWithOptions(lw, example, toolscache.SharedIndexInformerOptions{
		Indexers:          toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc},
		ObjectDescription: gvr.String(),
	})
	e.informers[key] = informer
	return kind, informer, nil
}

// listerWatcher is the List and Watch of one resource in one namespace or
// all, as client-go's ListerWatcher names it (a client-go lister reads a
// cache instead).
type listerWatcher interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// clientListerWatcher adapts the dynamic and metadata clients, whose List
// returns their own list type, to listerWatcher.
type clientListerWatcher[L runtime.Object] struct {
	r interface {
		List(ctx context.Context, opts metav1.ListOptions) (L, error)
		Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	}
}

func (l clientListerWatcher[L]) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return l.r.List(ctx, opts)
}

func (l clientListerWatcher[L]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return l.r.Watch(ctx, opts)
}

// transform runs on every object before it enters the cache. It must be
// idempotent: client-go may hand it an object it has already transformed.
func (e *Engine) transform(t *Type) toolscache.TransformFunc {
	gvk := t.Mapping.GroupVersionKind
	mode := e.cfg.ManagedFields
	then := e.cfg.Transforms[t.Mapping.Resource.GroupResource()]
	return func(obj interface{}) (interface{}, error) {
		t.received.Add(1)
		obj = engineTransform(obj, t.Kind, gvk, mode)
		if then == nil {
			return obj, nil
		}
		return then(obj)
	}
}

// engineTransform is the engine's part of every transform: the type's
// apiVersion and kind on typed and metadata objects, and managedFields as
// mode says. It changes obj in place, which client-go allows for an object
// it hands a transform.
func engineTransform(obj interface{}, kind InformerKind, gvk schema.GroupVersionKind, mode ManagedFields) interface{} {
	ro, ok := obj.(runtime.Object)
	if !ok {
		return obj
	}
	if kind != Dynamic {
		// Typed objects decoded from a list carry no apiVersion/kind,
		// and metadata-only ones say PartialObjectMetadata; printers
		// and JSONPath expect the type's own.
		ro.GetObjectKind().SetGroupVersionKind(gvk)
	}
	accessor, err := meta.Accessor(ro)
	if err != nil {
		return obj
	}
	trimManagedFields(accessor, mode)
	return obj
}

// trimManagedFields does to obj's managedFields what mode says.
func trimManagedFields(obj metav1.Object, mode ManagedFields) {
	switch mode {
	case DropManagedFields:
		if obj.GetManagedFields() != nil {
			obj.SetManagedFields(nil)
		}
	case SummarizeManagedFields, InternManagedFields:
		if fields := obj.GetManagedFields(); fields != nil {
			trimmed := make([]metav1.ManagedFieldsEntry, len(fields))
			for i, f := range fields {
				if mode == SummarizeManagedFields || f.FieldsV1 == nil {
					f.FieldsV1 = nil
				} else {
					f.FieldsV1 = fieldSets.intern(f.FieldsV1.GetRawBytes())
				}
				trimmed[i] = f
			}
			obj.SetManagedFields(trimmed)
		}
	}
}
