package engine

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// for all), fed by the engine's source: metadata-only unless
// cfg.FullObjects, whole objects otherwise, in the form the source gives
// them. Types that name the same resource and namespace share one informer.
// Every list and watch carries the engine's selectors and, on its context,
// the engine's request options.
func (e *Engine) informerFor(mapping *meta.RESTMapping, namespace string) (InformerKind, toolscache.SharedIndexInformer, error) {
	gvr := mapping.Resource
	feed, err := e.source.Feed(mapping, namespace, e.cfg.FullObjects)
	if err != nil {
		return 0, nil, err
	}
	if e.server == "" {
		e.server = feed.Server
	}
	key := informerKey{namespace: namespace, gvr: gvr}
	if informer, ok := e.informers[key]; ok {
		return feed.Kind, informer, nil
	}
	// A reducing engine reads a list item by item where the feed can, and
	// then lists rather than streams the initial list (WatchList): the API
	// server serves a LIST from its watch cache without copying each object
	// as it does for a watch, and the items carry no watch event framing.
	streamer, _ := feed.ListerWatcherWithContext.(listStreamer)
	if !e.reducesResource(gvr.GroupResource()) {
		streamer = nil
	}
	tweak := func(opts *metav1.ListOptions) {
		opts.LabelSelector = e.cfg.LabelSelector
		opts.FieldSelector = e.cfg.FieldSelector
	}
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			if e.Err() != nil {
				return nil, errEngineFailed
			}
			ctx = withRequestOptions(ctx, &e.requests)
			tweak(&opts)
			reduce, reduces := e.listTransforms[key]
			if streamer != nil && reduces {
				list, err := streamReducedList(ctx, streamer, opts, reduce.transform, e.releasesObjects(gvr.GroupResource()), reduce.counted)
				if !errors.Is(err, errNoListStream) {
					return list, err
				}
			}
			list, err := feed.ListWithContext(ctx, opts)
			if err == nil && reduces {
				return reduceList(list, reduce.transform)
			}
			return list, err
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			ctx = withRequestOptions(ctx, &e.requests)
			tweak(&opts)
			w, err := e.watchThroughOutages(ctx, key, opts, func(ctx context.Context) (watch.Interface, error) {
				return feed.WatchWithContext(ctx, opts)
			})
			if err != nil && e.Err() != nil {
				// client-go's streamed list sleeps out its backoff after a
				// refused connection, deaf to its stop channel, which
				// would hold Shutdown for a second or more.
				return nil, errEngineFailed
			}
			if err != nil {
				return nil, err
			}
			return quietAfterCancel(ctx, w), nil
		},
	}
	var source toolscache.ListerWatcher = lw
	if feed.NoWatchList || streamer != nil {
		source = noWatchList{lw}
	}
	informer := toolscache.NewSharedIndexInformerWithOptions(source, feed.Example, toolscache.SharedIndexInformerOptions{
		Indexers:          toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc},
		ObjectDescription: gvr.String(),
	})
	e.informers[key] = informer
	if feed.Outages != nil {
		feed.Outages(OutageReport{
			Failed: func(err error) {
				for _, t := range e.typesOf(key) {
					e.watchFailed(t, err)
				}
			},
			Resumed: func() {
				for _, t := range e.typesOf(key) {
					e.resumed(t)
				}
			},
			Fatal: e.fail,
		})
	}
	return feed.Kind, informer, nil
}

// errEngineFailed is what an engine's feeds answer once it has failed for
// good: an error a reflector does not retry, so that its informer stops as
// soon as the engine shuts down.
var errEngineFailed = errors.New("the engine has failed")

// noWatchList tells the reflector that its list-watcher does not serve the
// streaming initial list (client-go's watchlist.DoesClientNotSupportWatchListSemantics).
type noWatchList struct{ *toolscache.ListWatch }

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// clientListerWatcher adapts the dynamic and metadata clients, whose List
// returns their own list type, to client-go's ListerWatcherWithContext.
type clientListerWatcher[L runtime.Object] struct {
	r interface {
		List(ctx context.Context, opts metav1.ListOptions) (L, error)
		Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	}
}

func (l clientListerWatcher[L]) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return l.r.List(ctx, opts)
}

func (l clientListerWatcher[L]) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return l.r.Watch(ctx, opts)
}

// transform runs on every object before it enters the cache. It must be
// idempotent: client-go may hand it an object it has already transformed.
func (e *Engine) transform(t *Type) toolscache.TransformFunc {
	pipeline := e.pipeline(t)
	return func(obj interface{}) (interface{}, error) {
		t.received.Add(1)
		return pipeline(obj)
	}
}

// pipeline is what transform does to an object besides counting it: the
// engine's part, the resource's transform and Reduce.
func (e *Engine) pipeline(t *Type) toolscache.TransformFunc {
	gvk := t.Mapping.GroupVersionKind
	mode := e.cfg.ManagedFields
	share := e.cfg.ShareValues
	then := e.cfg.Transforms[t.Mapping.Resource.GroupResource()]
	reduce := e.cfg.Reduce
	return func(obj interface{}) (interface{}, error) {
		obj = engineTransform(obj, t.Kind, gvk, mode, share)
		if then != nil {
			var err error
			if obj, err = then(obj); err != nil {
				return nil, err
			}
		}
		if reduce == nil {
			return obj, nil
		}
		return reduce(obj)
	}
}

// engineTransform is the engine's part of every transform: the type's
// apiVersion and kind on typed and metadata objects, managedFields as mode
// says, and, with share, the values an object shares with other cached
// objects (internObject). It changes obj in place, which client-go allows for
// an object it hands a transform, but without share only where obj differs
// from what it sets: a source may hand several engines one object.
func engineTransform(obj interface{}, kind InformerKind, gvk schema.GroupVersionKind, mode ManagedFields, share bool) interface{} {
	ro, ok := obj.(runtime.Object)
	if !ok {
		return obj
	}
	if kind != Dynamic && ro.GetObjectKind().GroupVersionKind() != gvk {
		// Typed objects decoded from a list carry no apiVersion/kind,
		// and metadata-only ones say PartialObjectMetadata; printers
		// and JSONPath expect the type's own. One that has them is left
		// alone: a source may hand several informers the same object.
		ro.GetObjectKind().SetGroupVersionKind(gvk)
	}
	accessor, err := meta.Accessor(ro)
	if err != nil {
		return obj
	}
	trimManagedFields(accessor, mode)
	if share {
		internObject(obj)
	}
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
