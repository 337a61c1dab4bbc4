package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// fakeAPIServer serves list and watch of core v1 resources for the engine's
// tests, the way kube-apiserver does as far as the engine can tell: JSON
// lists and watch streams, the streaming initial list (WatchListClient) with
// its initial-events-end bookmark, PartialObjectMetadata for the metadata
// client, label and field selectors, and watches that resume from a
// resourceVersion. A test can answer any request itself (intercept), and end
// or break the watch streams that are open.
type fakeAPIServer struct {
	srv *httptest.Server

	mu        sync.Mutex
	rv        int
	objects   map[string]*unstructured.Unstructured // by resource/namespace/name
	events    []fakeEvent
	changed   chan struct{}            // closed and replaced when an event is added
	watchEnd  chan struct{}            // closed and replaced by endWatches
	breakConn bool                     // how endWatches ends them
	endMatch  func(*http.Request) bool // which endWatches ends; nil for all
	intercept func(w http.ResponseWriter, r *http.Request) bool
	requests  []*http.Request
	closed    chan struct{}
}

type fakeEvent struct {
	resource string
	typ      string
	obj      *unstructured.Unstructured
}

// kinds are the resources the fake serves and their kinds.
var kinds = map[string]string{"pods": "Pod", "nodes": "Node", "events": "Event"}

func newFakeAPIServer(t *testing.T) *fakeAPIServer {
	t.Helper()
	s := &fakeAPIServer{
		rv:       100,
		objects:  map[string]*unstructured.Unstructured{},
		changed:  make(chan struct{}),
		watchEnd: make(chan struct{}),
		closed:   make(chan struct{}),
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		close(s.closed)
		s.srv.Close()
	})
	return s
}

// clients returns engine clients that talk to the fake.
func (s *fakeAPIServer) clients(t *testing.T) *APIServer {
	t.Helper()
	c, err := NewAPIServer(&rest.Config{Host: s.srv.URL}, nil, "cache-test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// setIntercept makes f see every request first; f answers it by returning
// true. nil removes it.
func (s *fakeAPIServer) setIntercept(f func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	s.intercept = f
	s.mu.Unlock()
}

// seen returns the requests received so far.
func (s *fakeAPIServer) seen() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.requests...)
}

// endWatches ends every open watch stream: cleanly, as the server does when
// a watch times out, or by dropping the connection mid-stream.
func (s *fakeAPIServer) endWatches(breakConn bool) {
	s.endWatchesOf(nil, breakConn)
}

// endWatchesOf ends the open watch streams whose request matches.
func (s *fakeAPIServer) endWatchesOf(match func(*http.Request) bool, breakConn bool) {
	s.mu.Lock()
	s.breakConn, s.endMatch = breakConn, match
	close(s.watchEnd)
	s.watchEnd = make(chan struct{})
	s.mu.Unlock()
}

// apply stores obj, new or changed, and sends the event watchers get.
func (s *fakeAPIServer) apply(resource string, obj *unstructured.Unstructured) {
	s.record(resource, obj, false, false)
}

// remove deletes obj and sends the event, unless silently: then watchers
// miss the delete, as they do one made during an outage.
func (s *fakeAPIServer) remove(resource string, obj *unstructured.Unstructured, silently bool) {
	s.record(resource, obj, true, silently)
}

func (s *fakeAPIServer) record(resource string, obj *unstructured.Unstructured, deleted, silently bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	obj = obj.DeepCopy()
	obj.SetResourceVersion(strconv.Itoa(s.rv))
	key := resource + "/" + obj.GetNamespace() + "/" + obj.GetName()
	typ := "ADDED"
	switch _, exists := s.objects[key]; {
	case deleted:
		typ = "DELETED"
		delete(s.objects, key)
	case exists:
		typ = "MODIFIED"
	}
	if !deleted {
		s.objects[key] = obj
	}
	if silently {
		return
	}
	s.events = append(s.events, fakeEvent{resource: resource, typ: typ, obj: obj})
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *fakeAPIServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.Clone(r.Context()))
	intercept := s.intercept
	s.mu.Unlock()
	if intercept != nil && intercept(w, r) {
		return
	}
	resource, namespace, ok := parseCorePath(r.URL.Path)
	if !ok || r.Method != http.MethodGet {
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
		return
	}
	q := r.URL.Query()
	match, err := objectFilter(namespace, q.Get("labelSelector"), q.Get("fieldSelector"))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
		return
	}
	asMetadata := strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadata")
	if q.Get("watch") == "true" {
		s.watch(w, r, resource, match, asMetadata)
		return
	}
	s.mu.Lock()
	items := s.list(resource, match)
	rv := s.rv
	s.mu.Unlock()
	list := map[string]interface{}{
		"apiVersion": "v1",
		"kind":       kinds[resource] + "List",
		"metadata":   map[string]interface{}{"resourceVersion": strconv.Itoa(rv)},
	}
	if asMetadata {
		list["apiVersion"], list["kind"] = "meta.k8s.io/v1", "PartialObjectMetadataList"
	}
	var out []interface{}
	for _, obj := range items {
		out = append(out, served(obj, asMetadata))
	}
	list["items"] = out
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// list returns the current objects of resource that match; s.mu is held.
func (s *fakeAPIServer) list(resource string, match func(*unstructured.Unstructured) bool) []*unstructured.Unstructured {
	var items []*unstructured.Unstructured
	for key, obj := range s.objects {
		if strings.HasPrefix(key, resource+"/") && match(obj) {
			items = append(items, obj)
		}
	}
	return items
}

func (s *fakeAPIServer) watch(w http.ResponseWriter, r *http.Request, resource string, match func(*unstructured.Unstructured) bool, asMetadata bool) {
	q := r.URL.Query()
	s.mu.Lock()
	end := s.watchEnd
	var initial []*unstructured.Unstructured
	from := len(s.events) // events after the requested resourceVersion
	if q.Get("sendInitialEvents") == "true" {
		initial = s.list(resource, match)
	} else if rv, err := strconv.Atoi(q.Get("resourceVersion")); err == nil {
		for from > 0 && mustAtoi(s.events[from-1].obj.GetResourceVersion()) > rv {
			from--
		}
	}
	snapshot := s.rv
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(typ string, obj interface{}) {
		_ = enc.Encode(map[string]interface{}{"type": typ, "object": obj})
	}
	for _, obj := range initial {
		send("ADDED", served(obj, asMetadata))
	}
	if q.Get("sendInitialEvents") == "true" {
		bookmark := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": kinds[resource]}}
		bookmark.SetResourceVersion(strconv.Itoa(snapshot))
		bookmark.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
		send("BOOKMARK", served(bookmark, asMetadata))
	}
	w.(http.Flusher).Flush()
	for {
		s.mu.Lock()
		pending := s.events[from:]
		from = len(s.events)
		changed := s.changed
		s.mu.Unlock()
		for _, ev := range pending {
			if ev.resource == resource && match(ev.obj) {
				send(ev.typ, served(ev.obj, asMetadata))
			}
		}
		w.(http.Flusher).Flush()
		select {
		case <-changed:
		case <-end:
			s.mu.Lock()
			breakConn, match := s.breakConn, s.endMatch
			end = s.watchEnd
			s.mu.Unlock()
			if match != nil && !match(r) {
				continue
			}
			if breakConn {
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					conn.Close()
				}
			}
			return
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
	}
}

// served is obj as the server sends it: whole, or as PartialObjectMetadata.
func served(obj *unstructured.Unstructured, asMetadata bool) interface{} {
	if !asMetadata {
		return obj.Object
	}
	return map[string]interface{}{
		"apiVersion": "meta.k8s.io/v1",
		"kind":       "PartialObjectMetadata",
		"metadata":   obj.Object["metadata"],
	}
}

// parseCorePath splits /api/v1/RESOURCE and /api/v1/namespaces/NS/RESOURCE.
func parseCorePath(path string) (resource, namespace string, ok bool) {
	rest, ok := strings.CutPrefix(path, "/api/v1/")
	if !ok {
		return "", "", false
	}
	if after, found := strings.CutPrefix(rest, "namespaces/"); found {
		namespace, rest, _ = strings.Cut(after, "/")
	}
	_, ok = kinds[rest]
	return rest, namespace, ok
}

func objectFilter(namespace, labelSelector, fieldSelector string) (func(*unstructured.Unstructured) bool, error) {
	ls, err := labels.Parse(labelSelector)
	if err != nil {
		return nil, err
	}
	fs, err := fields.ParseSelector(fieldSelector)
	if err != nil {
		return nil, err
	}
	return func(obj *unstructured.Unstructured) bool {
		return (namespace == "" || obj.GetNamespace() == namespace) &&
			ls.Matches(labels.Set(obj.GetLabels())) &&
			fs.Matches(fields.Set{"metadata.name": obj.GetName(), "metadata.namespace": obj.GetNamespace()})
	}, nil
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// writeStatus answers with an API error as kube-apiserver words it.
func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(&metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure,
		Message:  message,
		Reason:   reason,
		Code:     int32(code),
	})
}

// isWatchRequest reports whether r is a watch, the streaming list included.
func isWatchRequest(r *http.Request) bool { return r.URL.Query().Get("watch") == "true" }

// fakePod returns a pod as the server stores it, with managedFields.
func fakePod(namespace, name, node string, labels map[string]string) *unstructured.Unstructured {
	pod := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1",
		"kind":       "Pod",
		"spec":       map[string]interface{}{"nodeName": node},
	}}
	pod.SetNamespace(namespace)
	pod.SetName(name)
	pod.SetLabels(labels)
	pod.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager:    "kubectl",
		Operation:  metav1.ManagedFieldsOperationApply,
		APIVersion: "v1",
		FieldsType: "FieldsV1",
		FieldsV1:   metav1.NewFieldsV1(`{"f:spec":{"f:nodeName":{}}}`),
	}})
	return pod
}

func fakeNode(name string) *unstructured.Unstructured {
	node := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "Node"}}
	node.SetName(name)
	return node
}

var (
	podsMapping = &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Scope:            meta.RESTScopeNamespace,
	}
	nodesMapping = &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "nodes"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Node"},
		Scope:            meta.RESTScopeRoot,
	}
)

// forbidden is the message RBAC gives a user who lacks verb on pods.
func forbidden(verb string) string {
	return fmt.Sprintf(`pods is forbidden: User "u" cannot %s resource "pods" in API group "" in the namespace "shop"`, verb)
}
