package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// Source is an engine.Source that reads a warm cache: each type's objects
// and changes come from the cache's informer of that type (a Stream
// request), so that a command's engine, relations and printers run in the
// command's own process, fed from the cache's memory instead of the API
// server. The cache's watch outages reach the engine as its own would
// (engine.Feed.Outages), and the API server's warnings the cache got are
// printed through Warnings.
//
// A type the cache declines (what it does not share, a refused watch, a
// watch failing longer than MaxStaleness) or cannot serve (it went away
// before the list) is read from Direct, the API server the cache reads,
// for the life of the feed; the cache's note says so on ErrOut. One-off
// reads beside an engine (engine.List, engine.Get) go to Direct.
type Source struct {
	// Socket is the cache's.
	Socket string
	// Direct is the API server the cache reads, as the command's own
	// clients reach it: its REST mapper resolves types.
	Direct engine.Source
	// MaxStaleness is the command's --max-staleness.
	MaxStaleness time.Duration
	// Warnings prints the API server's warnings, as the command's clients
	// print their own; nil drops them.
	Warnings rest.WarningHandler
	// ErrOut gets the notes of types read directly instead.
	ErrOut io.Writer
}

// RESTMapper implements engine.Source: Direct's.
func (s *Source) RESTMapper() meta.RESTMapper { return s.Direct.RESTMapper() }

// Feed implements engine.Source: whole objects, in the form Direct's
// whole objects have (the cache's informer holds that form).
func (s *Source) Feed(mapping *meta.RESTMapping, namespace string, _ bool) (engine.Feed, error) {
	direct, err := s.Direct.Feed(mapping, namespace, true)
	if err != nil {
		return engine.Feed{}, err
	}
	f := &feed{source: s, mapping: mapping, namespace: namespace, direct: direct}
	return engine.Feed{ListerWatcherWithContext: f, Kind: direct.Kind, Example: direct.Example, NoWatchList: true, Outages: f.setOutages}, nil
}

// feed is one type's list and watch through the cache: a List opens a
// stream, reads the objects the cache holds, and keeps the stream for the
// Watch that follows.
type feed struct {
	source    *Source
	mapping   *meta.RESTMapping
	namespace string
	direct    engine.Feed

	mu       sync.Mutex
	declined bool
	pending  *stream
	outages  engine.OutageReport
}

func (f *feed) setOutages(r engine.OutageReport) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outages = r
}

func (f *feed) report() engine.OutageReport {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.outages
}

// readsDirectly reports whether a request of ctx goes to Direct: a
// one-off read, or a type the cache declined.
func (f *feed) readsDirectly(ctx context.Context) bool {
	if _, ok := engine.FeedRequestOf(ctx); !ok {
		return true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.declined
}

// ListWithContext implements cache.ListerWatcherWithContext.
func (f *feed) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if f.readsDirectly(ctx) {
		return f.direct.ListWithContext(ctx, opts)
	}
	f.mu.Lock()
	if f.pending != nil {
		f.pending.Stop()
		f.pending = nil
	}
	f.mu.Unlock()
	req, _ := engine.FeedRequestOf(ctx)
	st, list, err := f.open(ctx, opts, req)
	var direct *readDirectly
	if errors.As(err, &direct) {
		f.mu.Lock()
		f.declined = true
		f.mu.Unlock()
		klog.V(1).InfoS("reading a type from the API server, not the warm cache", "type", f.mapping.Resource.String(), "reason", direct.reason)
		if direct.note != "" && f.source.ErrOut != nil {
			fmt.Fprintln(f.source.ErrOut, direct.note)
		}
		return f.direct.ListWithContext(ctx, opts)
	}
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.pending = st
	f.mu.Unlock()
	return list, nil
}

// WatchWithContext implements cache.ListerWatcherWithContext: the stream
// the last List opened, from where the list ended.
func (f *feed) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if f.readsDirectly(ctx) {
		return f.direct.WatchWithContext(ctx, opts)
	}
	f.mu.Lock()
	st := f.pending
	f.pending = nil
	f.mu.Unlock()
	if st == nil {
		return nil, apierrors.NewResourceExpired("the warm cache's stream has ended; listing again")
	}
	return st, nil
}

// readDirectly is why a type is read from Direct: the cache declined it,
// or could not be reached; note, when set, is printed for the user.
type readDirectly struct {
	reason string
	note   string
}

func (e *readDirectly) Error() string { return e.reason }

// open sends a Stream request of the feed's type and returns the stream
// once the cache has sent the objects it holds, and those objects as a
// list.
func (f *feed) open(ctx context.Context, opts metav1.ListOptions, req engine.FeedRequest) (*stream, runtime.Object, error) {
	conn, err := Dial(f.source.Socket, dialTimeout)
	if err != nil {
		return nil, nil, &readDirectly{reason: err.Error(), note: fmt.Sprintf("warning: not using the warm cache: %v; asking the API server directly", err)}
	}
	gvk := f.mapping.GroupVersionKind
	sr := protocol.StreamRequest{
		Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Resource: f.mapping.Resource.Resource,
		Namespace: f.namespace, LabelSelector: opts.LabelSelector, FieldSelector: opts.FieldSelector,
		ManagedFields: int(req.ManagedFields), RequireWatch: req.RequireWatch,
		SyncTimeout: protocol.Duration(req.SyncTimeout), MaxStaleness: protocol.Duration(f.source.MaxStaleness),
	}
	firstFrame := SilenceTimeout
	st := f.newStream(ctx, conn, sr, firstFrame)
	select {
	case r := <-st.listed:
		if r.err != nil {
			st.Stop()
			return nil, nil, r.err
		}
		return st, r.list, nil
	case <-ctx.Done():
		st.Stop()
		return nil, nil, ctx.Err()
	}
}

// dialTimeout bounds a connection to the cache and its Hello.
const dialTimeout = 2 * time.Second

// decode returns raw as a new object of the feed's form.
func (f *feed) decode(raw []byte) (runtime.Object, error) {
	obj, ok := reflect.New(reflect.TypeOf(f.direct.Example).Elem()).Interface().(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("objects of %T are not runtime objects", f.direct.Example)
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, u.UnmarshalJSON(raw)
	}
	return obj, utiljson.Unmarshal(raw, obj)
}
