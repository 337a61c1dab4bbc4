package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// waitLimit bounds every wait in these tests; reaching it is a failure, not
// a way to synchronize.
const waitLimit = 20 * time.Second

// receive returns the next value from ch, failing the test if none comes
// within waitLimit.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("no %s within %s", what, waitLimit)
		panic("unreachable")
	}
}

// popEvents pops q's events onto the returned channel until the test ends,
// when it closes q and drains what is left.
func popEvents(t *testing.T, q *Queue) <-chan *Event {
	events := make(chan *Event)
	go func() {
		defer close(events)
		for {
			ev, ok := q.Pop(context.Background())
			if !ok {
				return
			}
			events <- ev
		}
	}()
	t.Cleanup(func() {
		q.Close()
		for range events {
		}
	})
	return events
}

// newEngine creates an engine that is shut down when the test ends.
func newEngine(t *testing.T, clients *APIServer, mappings []*meta.RESTMapping, cfg Config) *Engine {
	t.Helper()
	e, err := New(clients, mappings, cfg)
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	t.Cleanup(e.Shutdown)
	return e
}

// startEngine creates an engine and starts it, failing the test unless every
// cache syncs.
func startEngine(t *testing.T, clients *APIServer, mappings []*meta.RESTMapping, cfg Config) *Engine {
	t.Helper()
	e := newEngine(t, clients, mappings, cfg)
	if err := e.Start(t.Context()); err != nil {
		t.Fatalf("Start() = %v", err)
	}
	return e
}

// labelIndex indexes objects by the value of label key; it reads metadata
// only.
func labelIndex(name, key string) index.Definition {
	return index.Definition{Name: name, MetadataOnly: true, Func: func(obj interface{}) ([]string, error) {
		a, err := meta.Accessor(obj)
		if err != nil {
			return nil, err
		}
		if v, ok := a.GetLabels()[key]; ok {
			return []string{v}, nil
		}
		return nil, nil
	}}
}

// seedShop stores pods in two namespaces and a node.
func seedShop(s *fakeAPIServer) {
	s.apply("pods", fakePod("shop", "web-2", "node-2", map[string]string{"app": "web", "tier": "front"}))
	s.apply("pods", fakePod("shop", "web-1", "node-1", map[string]string{"app": "web", "tier": "front"}))
	s.apply("pods", fakePod("shop", "db-1", "node-1", map[string]string{"app": "db", "tier": "data"}))
	s.apply("pods", fakePod("other", "web-3", "node-1", map[string]string{"app": "web", "tier": "front"}))
	node := fakeNode("node-1")
	node.SetLabels(map[string]string{"tier": "front"})
	s.apply("nodes", node)
}

func names(objs []interface{}) []string {
	var out []string
	for _, obj := range objs {
		a, err := meta.Accessor(obj)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		out = append(out, a.GetNamespace()+"/"+a.GetName())
	}
	return out
}

func TestEngineInformerKinds(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	tests := []struct {
		name     string
		cfg      Config
		noTyped  bool
		wantKind InformerKind
		wantType reflect.Type
	}{
		{"metadata only", Config{}, false, Metadata, reflect.TypeFor[*metav1.PartialObjectMetadata]()},
		{"built-in type in full", Config{FullObjects: true}, false, Typed, reflect.TypeFor[*corev1.Pod]()},
		{"no typed client", Config{FullObjects: true}, true, Dynamic, reflect.TypeFor[*unstructured.Unstructured]()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clients := s.clients(t)
			if tt.noTyped {
				clients.Typed = nil
			}
			cfg := tt.cfg
			cfg.Namespaces = []string{"shop"}
			cfg.LabelSelector = "tier=front"
			// "namespace" is also client-go's own index on every informer:
			// the engine must not add it twice.
			cfg.Indexes = []index.Definition{labelIndex("app", "app"), labelIndex("namespace", "none")}
			e := startEngine(t, clients, []*meta.RESTMapping{podsMapping, nodesMapping}, cfg)

			types := e.Types()
			if len(types) != 2 || types[0].Name() != "pods" || types[1].Name() != "nodes" {
				t.Fatalf("Types() = %v, want pods, nodes", types)
			}
			pods, nodes := types[0], types[1]
			if pods.Kind != tt.wantKind {
				t.Errorf("pods informer kind = %s, want %s", pods.Kind, tt.wantKind)
			}
			if !pods.Namespaced() || nodes.Namespaced() {
				t.Errorf("Namespaced() = %v for pods, %v for nodes, want true, false", pods.Namespaced(), nodes.Namespaced())
			}
			objs, err := pods.Lookup(nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := names(objs), []string{"shop/web-1", "shop/web-2"}; !slices.Equal(got, want) {
				t.Errorf("Lookup(nil) = %v, want %v (namespace and label selector applied, sorted)", got, want)
			}
			for _, obj := range objs {
				if reflect.TypeOf(obj) != tt.wantType {
					t.Errorf("cached object is %T, want %s", obj, tt.wantType)
				}
				a, _ := meta.Accessor(obj)
				if a.GetManagedFields() != nil {
					t.Errorf("%s/%s kept managedFields, want them dropped", a.GetNamespace(), a.GetName())
				}
				if gvk := obj.(interface{ GetObjectKind() schema.ObjectKind }).GetObjectKind().GroupVersionKind(); gvk != podsMapping.GroupVersionKind {
					t.Errorf("cached object's GVK = %s, want %s", gvk, podsMapping.GroupVersionKind)
				}
			}
			if n := nodes.Len(); n != 1 {
				t.Errorf("nodes.Len() = %d, want 1 (cluster-scoped, listed in no namespace)", n)
			}
			counts, err := pods.Count("app")
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]int{"web": 2}; !reflect.DeepEqual(counts, want) {
				t.Errorf(`Count("app") = %v, want %v`, counts, want)
			}
		})
	}
}

func TestEngineLookup(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	cfg := Config{Indexes: []index.Definition{labelIndex("app", "app"), labelIndex("tier", "tier")}}
	pods := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, cfg).Types()[0]
	tests := []struct {
		name      string
		selectors []index.Selector
		want      []string
	}{
		{"all", nil, []string{"other/web-3", "shop/db-1", "shop/web-1", "shop/web-2"}},
		{"one index", []index.Selector{{Name: "app", Operator: index.Equals, Values: []string{"web"}}}, []string{"other/web-3", "shop/web-1", "shop/web-2"}},
		{"two indexes", []index.Selector{{Name: "app", Operator: index.Equals, Values: []string{"web"}}, {Name: "namespace", Operator: index.Equals, Values: []string{"shop"}}}, []string{"shop/web-1", "shop/web-2"}},
		{"disjoint", []index.Selector{{Name: "app", Operator: index.Equals, Values: []string{"db"}}, {Name: "tier", Operator: index.Equals, Values: []string{"front"}}}, nil},
		{"no such value", []index.Selector{{Name: "app", Operator: index.Equals, Values: []string{"cache"}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := pods.Lookup(tt.selectors)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(objs); !slices.Equal(got, tt.want) {
				t.Errorf("Lookup(%v) = %v, want %v", tt.selectors, got, tt.want)
			}
		})
	}
	if _, err := pods.Lookup([]index.Selector{{Name: "color", Operator: index.Equals, Values: []string{"red"}}}); err == nil || !strings.Contains(err.Error(), `looking up pods`) || !strings.Contains(err.Error(), `index "color" is not registered`) {
		t.Errorf("Lookup of an unregistered index = %v, want an error naming it", err)
	}
	if _, err := pods.Count("color"); err != nil {
		t.Errorf(`Count("color") = %v, want no values and no error, as client-go gives`, err)
	}
}

func TestEngineManagedFields(t *testing.T) {
	s := newFakeAPIServer(t)
	s.apply("pods", fakePod("shop", "web-1", "node-1", nil))
	tests := []struct {
		mode        ManagedFields
		wantEntries int
		wantFields  bool
	}{
		{DropManagedFields, 0, false},
		{SummarizeManagedFields, 1, false},
		{KeepManagedFields, 1, true},
		{InternManagedFields, 1, true},
	}
	for _, tt := range tests {
		for _, full := range []bool{false, true} {
			e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, Config{ManagedFields: tt.mode, FullObjects: full})
			objs, err := e.Types()[0].Lookup(nil)
			if err != nil || len(objs) != 1 {
				t.Fatalf("Lookup(nil) = %d objects, %v; want 1", len(objs), err)
			}
			a, _ := meta.Accessor(objs[0])
			fields := a.GetManagedFields()
			if len(fields) != tt.wantEntries {
				t.Fatalf("mode %d, %s informer: %d managedFields entries, want %d", tt.mode, e.Types()[0].Kind, len(fields), tt.wantEntries)
			}
			if len(fields) == 1 && fields[0].Manager != "kubectl" {
				t.Errorf("mode %d, %s informer: manager = %q, want kubectl", tt.mode, e.Types()[0].Kind, fields[0].Manager)
			}
			if len(fields) == 1 && (fields[0].FieldsV1 != nil) != tt.wantFields {
				t.Errorf("mode %d, %s informer: fieldsV1 kept = %v, want %v", tt.mode, e.Types()[0].Kind, fields[0].FieldsV1 != nil, tt.wantFields)
			}
		}
	}
}

func TestEngineSharesAnInformerPerResource(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping, podsMapping}, Config{Indexes: []index.Definition{labelIndex("app", "app")}})
	types := e.Types()
	if len(types) != 2 || types[0].Informers[0] != types[1].Informers[0] {
		t.Fatalf("two types of one resource got %d types and distinct informers, want one informer", len(types))
	}
	var lists int
	for _, r := range s.seen() {
		if r.URL.Path == "/api/v1/pods" && r.URL.Query().Get("sendInitialEvents") == "true" {
			lists++
		}
	}
	if lists != 1 {
		t.Errorf("the server got %d initial lists of pods, want 1", lists)
	}
}

func TestEngineEvents(t *testing.T) {
	s := newFakeAPIServer(t)
	web1 := fakePod("shop", "web-1", "node-1", nil)
	web2 := fakePod("shop", "web-2", "node-2", nil)
	s.apply("pods", web1)
	s.apply("pods", web2)
	// Enough objects that a streaming initial list, which reaches handlers
	// in the order of a map, would scramble them.
	wantInitial := []string{}
	for i := range 38 {
		name := fmt.Sprintf("a-%02d", i)
		s.apply("pods", fakePod("shop", name, "node-1", nil))
		wantInitial = append(wantInitial, "ADDED shop/"+name+" initial")
	}
	wantInitial = append(wantInitial, "ADDED shop/web-1 initial", "ADDED shop/web-2 initial")
	e := newEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, Config{})
	q := NewQueue(100)
	if err := e.SendEvents(q); err != nil {
		t.Fatal(err)
	}
	if err := e.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	events := popEvents(t, q)
	pods := e.Types()[0]
	next := func() string {
		t.Helper()
		ev := receive(t, events, "event")
		if ev.Resource != pods {
			t.Errorf("event of type %v, want pods", ev.Resource)
		}
		got := string(ev.Type) + " " + ev.Key
		if ev.Initial {
			got += " initial"
		}
		if ev.FinalStateUnknown {
			got += " final state unknown"
		}
		if ev.Old != nil && ev.New != nil && ev.Old.(metav1.Object).GetResourceVersion() == ev.New.(metav1.Object).GetResourceVersion() {
			got += " same resourceVersion"
		}
		return got
	}
	var initial []string
	for range wantInitial {
		initial = append(initial, next())
	}
	if !slices.Equal(initial, wantInitial) {
		t.Errorf("initial events = %q, want %q (sorted by key, as the API server lists)", initial, wantInitial)
	}

	web1.SetLabels(map[string]string{"app": "web"})
	s.apply("pods", web1)
	s.remove("pods", web2, false)
	s.apply("pods", fakePod("shop", "web-3", "node-1", nil))
	for _, want := range []string{"MODIFIED shop/web-1", "DELETED shop/web-2", "ADDED shop/web-3"} {
		if got := next(); got != want {
			t.Errorf("event = %q, want %q", got, want)
		}
	}

	// A delete the watch missed shows after the relist that follows an
	// expired resourceVersion, as a delete whose final state is unknown.
	s.remove("pods", web1, true)
	expired := make(chan struct{})
	s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if !isWatchRequest(r) || r.URL.Query().Get("sendInitialEvents") == "true" {
			return false
		}
		select {
		case <-expired:
			return false
		default:
			close(expired)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version","reason":"Expired","code":410}}` + "\n"))
		return true
	})
	s.endWatches(false)
	if got, want := next(), "DELETED shop/web-1 final state unknown"; got != want {
		t.Errorf("event = %q, want %q", got, want)
	}
}

func TestStartFailsFast(t *testing.T) {
	tests := []struct {
		name       string
		code       int
		reason     metav1.StatusReason
		message    string
		wantReason metav1.StatusReason
	}{
		{"list forbidden", http.StatusForbidden, metav1.StatusReasonForbidden, forbidden("list"), metav1.StatusReasonForbidden},
		{"unauthorized", http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", metav1.StatusReasonUnauthorized},
		{"type not served", http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource", metav1.StatusReasonNotFound},
		{"bad selector", http.StatusBadRequest, metav1.StatusReasonBadRequest, `unable to parse requirement: found '(', expected: identifier`, metav1.StatusReasonBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFakeAPIServer(t)
			s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
				writeStatus(w, tt.code, tt.reason, tt.message)
				return true
			})
			e := newEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, Config{SyncTimeout: waitLimit})
			err := e.Start(t.Context())
			if err == nil {
				t.Fatal("Start() = nil, want an error")
			}
			if want := "listing pods: " + tt.message; err.Error() != want {
				t.Errorf("Start() = %q, want %q", err, want)
			}
			if got := apierrors.ReasonForError(err); got != tt.wantReason {
				t.Errorf("reason of Start()'s error = %q, want %q", got, tt.wantReason)
			}
			select {
			case <-e.Failed():
			default:
				t.Error("Failed() is not closed after Start failed")
			}
			if e.Err() != err {
				t.Errorf("Err() = %v, want Start()'s error", e.Err())
			}
		})
	}
}

// TestWatchErrorClassification hands errors to a type's watch error handler
// before sync, as the reflector does, and checks which fail the engine.
// (Through a real client, a refused or dropped connection rarely reaches
// the handler: client-go retries it inside the request and the streaming
// list first.)
func TestWatchErrorClassification(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	serverError := apierrors.NewInternalError(errors.New("etcd unavailable"))
	listForbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New(`User "u" cannot list resource "pods"`))
	watchForbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New(`User "u" cannot watch resource "pods"`))
	tests := []struct {
		name         string
		requireWatch bool
		errs         []error
		want         string // the engine's error, "" for none
	}{
		{"server error", false, []error{serverError, serverError, serverError, serverError}, ""},
		{"two connection errors", false, []error{refused, reset}, ""},
		{"three connection errors in a row", false, []error{refused, reset, refused}, "listing pods: " + refused.Error()},
		{"connection errors not in a row", false, []error{refused, reset, serverError, refused, reset}, ""},
		{"list forbidden", false, []error{fmt.Errorf("failed to list *v1.Pod: %w", listForbidden)}, "listing pods: " + listForbidden.Error()},
		{"watch forbidden, not required", false, []error{watchForbidden, watchForbidden}, ""},
		{"watch forbidden, required", true, []error{watchForbidden}, "watching pods: " + watchForbidden.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(t, &APIServer{Metadata: metadatafake.NewSimpleMetadataClient(scheme.Scheme)}, []*meta.RESTMapping{podsMapping}, Config{RequireWatch: tt.requireWatch})
			handle := e.watchErrorHandler(e.Types()[0])
			for _, err := range tt.errs {
				handle(t.Context(), nil, err)
			}
			got := ""
			if err := e.Err(); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("after %v: Err() = %q, want %q", tt.errs, got, tt.want)
			}
		})
	}
}

// hang answers no request: each waits until the client gives up.
func hang(s *fakeAPIServer) {
	s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		return true
	})
}

// answerSlowly answers every request with its headers and then nothing
// more until the client gives up: the server is there, the list slow.
func answerSlowly(s *fakeAPIServer) {
	s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		return true
	})
}

// TestStartTimesOut checks the error and progress of a sync that times
// out, against a server that answers nothing (silent: no progress until the
// end, and the error names the server) and one whose lists never end.
func TestStartTimesOut(t *testing.T) {
	for _, tt := range []struct {
		name         string
		serve        func(*fakeAPIServer)
		silent       bool
		wantProgress int
	}{
		{"silent server", hang, true, 1},
		{"slow lists", answerSlowly, false, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newFakeAPIServer(t)
			tt.serve(s)
			var progress []Progress
			cfg := Config{SyncTimeout: 300 * time.Millisecond, Progress: func(p Progress) { progress = append(progress, p) }}
			e := newEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping, nodesMapping}, cfg)
			err := e.Start(t.Context())
			want := "timed out after 300ms waiting for the cache of [nodes (0 objects received) pods (0 objects received)] to sync"
			wantSilent := ""
			if tt.silent {
				wantSilent = s.srv.URL
				want = "timed out after 300ms waiting for " + s.srv.URL + " to answer the lists of [nodes (0 objects received) pods (0 objects received)]"
			}
			if err == nil || err.Error() != want {
				t.Errorf("Start() = %v, want %q", err, want)
			}
			var timeout *SyncTimeoutError
			if !errors.As(err, &timeout) {
				t.Fatalf("Start() returned %T, want *SyncTimeoutError", err)
			}
			if wantPending := []TypeProgress{{Name: "nodes"}, {Name: "pods"}}; timeout.Timeout != cfg.SyncTimeout || !slices.Equal(timeout.Pending, wantPending) || timeout.Silent != wantSilent {
				t.Errorf("SyncTimeoutError = %+v, want Timeout %s, Pending %+v, Silent %q", timeout, cfg.SyncTimeout, wantPending, wantSilent)
			}
			if len(progress) < tt.wantProgress || (tt.silent && len(progress) != 1) {
				t.Fatalf("Progress called %d times, want %d or more (only at the end when the server is silent)", len(progress), tt.wantProgress)
			}
			last := progress[len(progress)-1]
			wantTypes := []TypeProgress{{Name: "pods"}, {Name: "nodes"}}
			if !last.Done || !slices.Equal(last.Types, wantTypes) || last.Elapsed < cfg.SyncTimeout {
				t.Errorf("last Progress = %+v, want Done, %+v, Elapsed ≥ %s", last, wantTypes, cfg.SyncTimeout)
			}
			for _, p := range progress[:len(progress)-1] {
				if p.Done {
					t.Errorf("Progress %+v before the end says Done", p)
				}
			}
		})
	}
}

// TestStartFailsAtOnceWhenUnreachable starts an engine against an address
// nothing listens on: the first connection error ends the sync, where the
// reflector would retry it (a streamed list without telling the engine),
// and the engine shuts down at once.
func TestStartFailsAtOnceWhenUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, mappings := range [][]*meta.RESTMapping{{podsMapping}, {podsMapping, nodesMapping}} {
		clients, err := NewAPIServer(&rest.Config{Host: "http://" + addr}, nil, "test")
		if err != nil {
			t.Fatal(err)
		}
		e := newEngine(t, clients, mappings, Config{SyncTimeout: waitLimit})
		began := time.Now()
		err = e.Start(t.Context())
		if err == nil || !strings.HasPrefix(err.Error(), "listing ") || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("Start() = %v, want listing …: … connection refused", err)
		}
		e.Shutdown()
		// The reflector's first retry comes after 0.8 s or more.
		if took := time.Since(began); took > 700*time.Millisecond {
			t.Errorf("Start() and Shutdown() took %s, want them to end at the first refused connection", took)
		}
	}
}

func TestStartEndsWithTheContext(t *testing.T) {
	s := newFakeAPIServer(t)
	hang(s)
	e := newEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, Config{SyncTimeout: waitLimit})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := e.Start(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Start() = %v, want %v", err, context.Canceled)
	}
}

func TestStartReportsProgressUntilSynced(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	var progress []Progress
	startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, Config{Progress: func(p Progress) { progress = append(progress, p) }})
	if len(progress) == 0 {
		t.Fatal("Progress never called")
	}
	last := progress[len(progress)-1]
	// Received counts transform calls: with a streaming list client-go
	// transforms each object twice.
	if types := last.Types; !last.Done || len(types) != 1 || types[0].Name != "pods" || !types[0].Synced || types[0].Received < 4 {
		t.Errorf("last Progress = %+v, want Done with pods synced, 4 or more objects received", last)
	}
}

func TestRequireWatch(t *testing.T) {
	for _, require := range []bool{true, false} {
		t.Run(map[bool]string{true: "required", false: "not required"}[require], func(t *testing.T) {
			s := newFakeAPIServer(t)
			seedShop(s)
			watches := make(chan struct{}, 100)
			s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
				if !isWatchRequest(r) {
					return false
				}
				writeStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, forbidden("watch"))
				watches <- struct{}{}
				return true
			})
			var watchErrors []error
			cfg := Config{RequireWatch: require, OnWatchError: func(_ *Type, err error) { watchErrors = append(watchErrors, err) }}
			e := newEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, cfg)
			startErr := e.Start(t.Context())
			if !require {
				if startErr != nil {
					t.Fatalf("Start() = %v, want the cache synced from the list", startErr)
				}
				// The reflector tries the streaming list, lists, watches,
				// and after a back-off starts again: by the third watch
				// request the engine has seen a refused watch.
				for range 3 {
					receive(t, watches, "watch request")
				}
				if err := e.Err(); err != nil {
					t.Errorf("Err() = %v, want nil: a query needs no watch", err)
				}
				return
			}
			select {
			case <-e.Failed():
			case <-time.After(waitLimit):
				t.Fatal("Failed() not closed after a forbidden watch")
			}
			want := "watching pods: " + forbidden("watch")
			if err := e.Err(); err == nil || err.Error() != want {
				t.Errorf("Err() = %v, want %q", err, want)
			}
			if startErr != nil && startErr != e.Err() {
				t.Errorf("Start() = %v, want nil or Err()", startErr)
			}
			e.Shutdown()
			if len(watchErrors) > 0 {
				t.Errorf("OnWatchError called with %v, want the refused first watch to fail the engine only", watchErrors)
			}
		})
	}
}

func TestOnWatchErrorAndResumed(t *testing.T) {
	tests := []struct {
		name      string
		breakConn bool
		refuse    bool
		wantErr   func(error) bool
	}{
		{"watch refused after sync", false, true, apierrors.IsInternalError},
		{"watch stream broken", true, false, func(err error) bool { return strings.Contains(err.Error(), "watch stream broken: ") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFakeAPIServer(t)
			seedShop(s)
			errs := make(chan error, 100)
			resumed := make(chan *Type, 100)
			cfg := Config{
				OnWatchError:   func(_ *Type, err error) { errs <- err },
				OnWatchResumed: func(t *Type) { resumed <- t },
			}
			e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, cfg)
			select {
			case err := <-errs:
				t.Fatalf("OnWatchError(%v) before any outage", err)
			default:
			}
			if tt.refuse {
				s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
					if !isWatchRequest(r) {
						return false
					}
					writeStatus(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, "Internal error occurred: etcd unavailable")
					return true
				})
			}
			s.endWatches(tt.breakConn)
			for err := receive(t, errs, "OnWatchError"); !tt.wantErr(err); err = receive(t, errs, "OnWatchError") {
				t.Logf("OnWatchError(%v), not yet the one expected", err)
			}
			s.setIntercept(nil)
			if got := receive(t, resumed, "OnWatchResumed"); got != e.Types()[0] {
				t.Errorf("OnWatchResumed(%v), want pods", got)
			}
		})
	}
}

// TestEnginesShareClients starts two engines on one APIServer, one asking for
// plain watch streams, and makes the watches of one of them fail.
func TestEnginesShareClients(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	clients := s.clients(t)
	type side struct {
		errs    chan error
		resumed chan *Type
		eng     *Engine
	}
	start := func(selector string, plain bool) *side {
		sd := &side{errs: make(chan error, 100), resumed: make(chan *Type, 100)}
		sd.eng = startEngine(t, clients, []*meta.RESTMapping{podsMapping}, Config{
			LabelSelector:     selector,
			PlainWatchStreams: plain,
			OnWatchError:      func(_ *Type, err error) { sd.errs <- err },
			OnWatchResumed:    func(t *Type) { sd.resumed <- t },
		})
		return sd
	}
	front := start("tier=front", true)
	data := start("tier=data", false)

	wantEncoding := map[string]string{"tier=front": "identity", "tier=data": "gzip"}
	for _, r := range s.seen() {
		selector := r.URL.Query().Get("labelSelector")
		if got := r.Header.Get("Accept-Encoding"); isWatchRequest(r) && got != wantEncoding[selector] {
			t.Errorf("watch of %s sent Accept-Encoding %q, want %q", selector, got, wantEncoding[selector])
		}
	}

	isFront := func(r *http.Request) bool { return r.URL.Query().Get("labelSelector") == "tier=front" }
	s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if !isWatchRequest(r) || !isFront(r) {
			return false
		}
		writeStatus(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, "Internal error occurred: etcd unavailable")
		return true
	})
	s.endWatchesOf(isFront, false)
	receive(t, front.errs, "OnWatchError of the failing engine")
	s.setIntercept(nil)
	if got := receive(t, front.resumed, "OnWatchResumed of the failing engine"); got != front.eng.Types()[0] {
		t.Errorf("OnWatchResumed(%v), want the failing engine's pods", got)
	}
	select {
	case err := <-data.errs:
		t.Errorf("the other engine got OnWatchError(%v)", err)
	case <-data.resumed:
		t.Error("the other engine got OnWatchResumed")
	default:
	}
}

func TestShutdownIsIdempotent(t *testing.T) {
	s := newFakeAPIServer(t)
	e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, Config{})
	e.Shutdown()
	e.Shutdown()
}

func TestInformerKindString(t *testing.T) {
	for kind, want := range map[InformerKind]string{Typed: "typed", Dynamic: "dynamic", Metadata: "metadata", 7: "InformerKind(7)"} {
		if got := kind.String(); got != want {
			t.Errorf("InformerKind(%d).String() = %q, want %q", int(kind), got, want)
		}
	}
}

func TestEngineSeveralNamespaces(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	s.apply("pods", fakePod("third", "web-4", "node-2", map[string]string{"app": "web"}))
	cfg := Config{Namespaces: []string{"shop", "other"}, Indexes: []index.Definition{labelIndex("app", "app")}}
	e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping, nodesMapping}, cfg)
	pods, nodes := e.Types()[0], e.Types()[1]
	if len(pods.Informers) != 2 || len(nodes.Informers) != 1 {
		t.Fatalf("pods have %d informers and nodes %d, want one per namespace (2) and one for the cluster-scoped type", len(pods.Informers), len(nodes.Informers))
	}
	web, err := pods.Lookup([]index.Selector{{Name: "app", Operator: index.Equals, Values: []string{"web"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(web), []string{"other/web-3", "shop/web-1", "shop/web-2"}; !slices.Equal(got, want) {
		t.Errorf("Lookup(app=web) = %v, want %v (both namespaces, not third)", got, want)
	}
	counts, err := pods.Count("app")
	if err != nil {
		t.Fatal(err)
	}
	if counts["web"] != 3 || counts["db"] != 1 || pods.Len() != 4 {
		t.Errorf("Count(app) = %v and Len() = %d, want web 3, db 1, 4 in all", counts, pods.Len())
	}
	listed := map[string]bool{}
	for _, r := range s.seen() {
		listed[r.URL.Path] = true
	}
	for _, path := range []string{"/api/v1/namespaces/shop/pods", "/api/v1/namespaces/other/pods", "/api/v1/nodes"} {
		if !listed[path] {
			t.Errorf("no request to %s; requests: %v", path, listed)
		}
	}
	if listed["/api/v1/pods"] {
		t.Errorf("pods were listed across all namespaces")
	}
}

func TestEngineTransformsPerResource(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	var podsSeen atomic.Int64
	stripPod := func(obj interface{}) (interface{}, error) {
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			return obj, nil
		}
		podsSeen.Add(1)
		if pod.APIVersion != "v1" || pod.Kind != "Pod" {
			t.Errorf("the pods transform got apiVersion %q kind %q, want the engine's transform to run first", pod.APIVersion, pod.Kind)
		}
		if pod.ManagedFields != nil {
			t.Errorf("the pods transform got managedFields, want the engine's transform to run first")
		}
		return &corev1.Pod{TypeMeta: pod.TypeMeta, ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, Labels: map[string]string{"stripped": "yes"}}}, nil
	}
	e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping, nodesMapping}, Config{
		FullObjects: true,
		Indexes:     []index.Definition{labelIndex("stripped", "stripped")},
		Transforms:  map[schema.GroupResource]toolscache.TransformFunc{{Resource: "pods"}: stripPod},
	})
	pods, err := e.Types()[0].Lookup([]index.Selector{{Name: "stripped", Operator: index.Equals, Values: []string{"yes"}}})
	if err != nil || len(pods) != 4 {
		t.Fatalf("pods with label stripped=yes: %v, %v; want the 4 pods, indexed after the transform", names(pods), err)
	}
	nodes, err := e.Types()[1].Lookup(nil)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("Lookup(nil) of nodes = %v, %v; want node-1", names(nodes), err)
	}
	if a, _ := meta.Accessor(nodes[0]); a.GetLabels()["tier"] != "front" {
		t.Errorf("node-1 labels = %v, want them untouched by the pods transform", a.GetLabels())
	}
	if podsSeen.Load() < 4 {
		t.Errorf("the pods transform saw %d pods, want at least 4", podsSeen.Load())
	}
}
