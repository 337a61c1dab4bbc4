package engine

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
)

// Source is where an engine's objects come from: the list and watch of each
// type, and the REST mapping that resolves types. The engine's informers are
// client-go shared informers whatever the source; only what feeds their
// reflectors differs. APIServer (one live API server, one context) is a
// source; a context of a fleet, files on disk or a recording are others.
//
// A Source is safe for concurrent use: several engines, and the engines'
// informers, call it from their own goroutines.
type Source interface {
	// RESTMapper resolves what users type (resource names, short names,
	// kinds, group-qualified names) to REST mappings. A source without a
	// discovery endpoint (a dump) builds one from what it holds.
	RESTMapper() meta.RESTMapper
	// Feed returns the list and watch of mapping's objects in namespace
	// ("" for all namespaces, and always "" for a cluster-scoped type):
	// metadata-only objects when full is false and the source can serve
	// them, whole objects otherwise. The engine adds its label and field
	// selectors to every request; a source must apply label selectors, and
	// the field selectors the type supports, as the API server does, and
	// refuse the others with an error that says so.
	Feed(mapping *meta.RESTMapping, namespace string, full bool) (Feed, error)
}

// Feed is a source's list and watch of one type, in one namespace or in
// all.
//
// List returns a list object of the feed's form with a resourceVersion;
// Watch continues from a resourceVersion a List returned, and ends when the
// source cannot go on (a watch timeout, a restarted server), after which the
// informer's reflector watches or lists again, as client-go does against an
// API server. A source that has nothing more to send keeps its watch open
// and idle, so the informer stays synced.
type Feed struct {
	toolscache.ListerWatcherWithContext
	// Kind says which form the feed's objects have.
	Kind InformerKind
	// Example is an object of that form (a *v1.Pod, an
	// *unstructured.Unstructured, a *metav1.PartialObjectMetadata), which
	// the informer checks every object against.
	Example runtime.Object
	// Server is the URL of the API server the feed's requests go to, through
	// clients that tell the engine of each response (NewAPIServer's); ""
	// when the feed reads anything else. Until that server has answered one
	// of the engine's requests, the engine reports no progress, a connection
	// error ends its sync at once, and a sync timeout names the server as
	// silent (SyncTimeoutError.Silent): no discovery need have reached the
	// server before the engine's first list.
	Server string
	// NoWatchList says the feed's Watch does not serve the streaming
	// initial list (sendInitialEvents with the initial-events-end
	// bookmark): the informer then always starts with List. An API server
	// serves it; a source over files or recordings need not.
	NoWatchList bool
	// Outages, when set, is called once, before the informer starts, with
	// how the feed reports the watch of the cache it reads (a warm cache's
	// informer): an engine's own watch of such a feed never breaks when
	// that cache's watch of its API server does.
	Outages func(OutageReport)
}

// OutageReport is how a feed reports the watch of the cache it reads:
// Failed for each failed attempt (as OnWatchError), Resumed once the watch
// is live again, and Fatal when it can never go on (a watch the identity
// may not make), which fails the engine.
type OutageReport struct {
	Failed  func(err error)
	Resumed func()
	Fatal   func(err error)
}

// List lists mapping's objects in namespace once, through source, without
// an informer: whole objects when full, else metadata when the source can
// serve it. It is for a command's one-off reads beside its engine (a CRD's
// printer columns, a probe of access); what it returns must not be mutated
// if the source shares it.
func List(ctx context.Context, source Source, mapping *meta.RESTMapping, namespace string, full bool, opts metav1.ListOptions) (runtime.Object, error) {
	feed, err := source.Feed(mapping, namespace, full)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", mapping.Resource.GroupResource(), err)
	}
	return feed.ListWithContext(ctx, opts)
}

// getter is implemented by sources that can read one object by name
// without listing (an API server, where get and list are separate
// permissions).
type getter interface {
	get(ctx context.Context, mapping *meta.RESTMapping, namespace, name string) (runtime.Object, error)
}

// Get reads the object name of mapping's type in namespace ("" for a
// cluster-scoped type) once, through source, whole: with a GET where the
// source has one, else with a list selecting metadata.name. A missing
// object is an error for which apierrors.IsNotFound is true.
func Get(ctx context.Context, source Source, mapping *meta.RESTMapping, namespace, name string) (runtime.Object, error) {
	if g, ok := source.(getter); ok {
		return g.get(ctx, mapping, namespace, name)
	}
	list, err := List(ctx, source, mapping, namespace, true, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, fmt.Errorf("reading the list of %s: %w", mapping.Resource.GroupResource(), err)
	}
	if len(items) == 0 {
		return nil, apierrors.NewNotFound(mapping.Resource.GroupResource(), name)
	}
	return items[0], nil
}
