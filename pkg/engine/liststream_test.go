package engine

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// listServer answers LISTs of pods in protobuf (or, with asJSON, in JSON)
// and holds watches open without events, recording every request's query.
type listServer struct {
	pods   *corev1.PodList
	asJSON bool

	mu      sync.Mutex
	lists   []string
	watches []string
	accepts []string // of the metadata LISTs
}

func (s *listServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	if q.Get("watch") == "true" {
		s.watches = append(s.watches, r.URL.RawQuery)
	} else {
		s.lists = append(s.lists, r.URL.RawQuery)
	}
	s.mu.Unlock()
	if q.Get("watch") == "true" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	var body bytes.Buffer
	var err error
	if strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadataList") && !s.asJSON {
		s.mu.Lock()
		s.accepts = append(s.accepts, r.Header.Get("Accept"))
		s.mu.Unlock()
		list := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}, ListMeta: s.pods.ListMeta}
		for i := range s.pods.Items {
			list.Items = append(list.Items, metav1.PartialObjectMetadata{ObjectMeta: s.pods.Items[i].ObjectMeta})
		}
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
		err = protobuf.NewSerializer(metainternalversionscheme.Scheme, metainternalversionscheme.Scheme).Encode(list, &body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(body.Bytes())
		return
	}
	if s.asJSON {
		w.Header().Set("Content-Type", "application/json")
		err = scheme.Codecs.LegacyCodec(corev1.SchemeGroupVersion).Encode(s.pods, &body)
	} else {
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		err = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(s.pods, &body)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(body.Bytes())
}

// TestEngineStreamsReducedLists syncs a reducing engine from a server that
// answers in protobuf: it lists once, consistently (no resourceVersion) and
// unpaginated, reads the items one by one through the reduce, never asks
// for the streaming initial list, and caches every pod reduced. A server
// that answers in JSON is listed as before.
func TestEngineStreamsReducedLists(t *testing.T) {
	const n = 321
	pods := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "777"}}
	for i := range n {
		pods.Items = append(pods.Items, *memoryPod(fmt.Sprintf("p-%04d", i), fmt.Sprintf("node-%d", i%7), "web", strconv.Itoa(i+1)))
	}
	for _, asJSON := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", asJSON), func(t *testing.T) {
			srv := &listServer{pods: pods, asJSON: asJSON}
			r := &countingReduce{seen: map[string]bool{}}
			e := startListEngine(t, srv, Config{
				FullObjects: true, Reduce: r.reduce, Reads: []string{"spec.nodeName"},
				Indexes: []index.Definition{labelIndex("node", "node")}, SyncTimeout: 30 * time.Second,
			})
			srv.mu.Lock()
			lists := append([]string(nil), srv.lists...)
			srv.mu.Unlock()
			wantLists := []string{""}
			if asJSON {
				// The JSON answer is read again by client-go's list,
				// which keeps the reflector's options.
				wantLists = []string{"", "limit=500&resourceVersion=0"}
			}
			if fmt.Sprint(lists) != fmt.Sprint(wantLists) {
				t.Errorf("LIST queries = %q, want %q", lists, wantLists)
			}
			srv.mu.Lock()
			for _, w := range srv.watches {
				if bytes.Contains([]byte(w), []byte("sendInitialEvents")) {
					t.Errorf("watch %q asks for the streaming initial list", w)
				}
			}
			srv.mu.Unlock()
			on3, err := e.Types()[0].Lookup([]index.Selector{{Name: "node", Operator: index.Equals, Values: []string{"node-3"}}})
			if want := (n + 7 - 1 - 3) / 7; err != nil || len(on3) != want {
				t.Errorf("Lookup(node=node-3) = %d objects, %v; want %d", len(on3), err, want)
			}
			for _, obj := range on3 {
				if _, ok := obj.(*metav1.PartialObjectMetadata); !ok {
					t.Fatalf("cached %T, want every pod reduced", obj)
				}
			}
			if got := r.count(); got != n {
				t.Errorf("reduced %d pods, want %d", got, n)
			}
			all, err := e.Types()[0].Lookup(nil)
			if err != nil || len(all) != n {
				t.Fatalf("Lookup(nil) = %d objects, %v; want %d", len(all), err, n)
			}
			for i, obj := range all {
				// Each item was decoded into the struct of the one before
				// it: what the reduce kept must not have changed since.
				m := obj.(*metav1.PartialObjectMetadata)
				if want := fmt.Sprintf("p-%04d", i); m.Name != want || m.Labels["node"] != fmt.Sprintf("node-%d", i%7) {
					t.Fatalf("cached object %d = %s on %s, want %s on node-%d", i, m.Name, m.Labels["node"], want, i%7)
				}
			}
			if got := e.Types()[0].receivedSoFar(); got != n {
				t.Errorf("received %d objects, want %d", got, n)
			}
		})
	}
}

// TestStreamedItemsReturnedWholeAreNotReused reduces some pods to
// themselves (a Reduce may return the object it is given): those must not
// be decoded into again.
func TestStreamedItemsReturnedWholeAreNotReused(t *testing.T) {
	const n = 50
	pods := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "9"}}
	for i := range n {
		pods.Items = append(pods.Items, *memoryPod(fmt.Sprintf("p-%04d", i), fmt.Sprintf("node-%d", i%3), "web", strconv.Itoa(i+1)))
	}
	r := &countingReduce{seen: map[string]bool{}}
	reduce := func(obj interface{}) (interface{}, error) {
		if pod, ok := obj.(*corev1.Pod); ok && pod.Spec.NodeName == "node-0" {
			return pod, nil
		}
		return r.reduce(obj)
	}
	e := startListEngine(t, &listServer{pods: pods}, Config{FullObjects: true, Reduce: reduce, SyncTimeout: 30 * time.Second})
	all, err := e.Types()[0].Lookup(nil)
	if err != nil || len(all) != n {
		t.Fatalf("Lookup(nil) = %d objects, %v; want %d", len(all), err, n)
	}
	for i, obj := range all {
		want := fmt.Sprintf("p-%04d", i)
		switch o := obj.(type) {
		case *corev1.Pod:
			if o.Name != want || o.Spec.NodeName != "node-0" {
				t.Errorf("cached pod %d = %s on %s, want %s on node-0", i, o.Name, o.Spec.NodeName, want)
			}
		case *metav1.PartialObjectMetadata:
			if o.Name != want {
				t.Errorf("cached object %d = %s, want %s", i, o.Name, want)
			}
		}
	}
}

// TestEngineStreamsMetadataLists syncs a reducing metadata-only engine: it
// lists once as the metadata client does (PartialObjectMetadataList in
// protobuf), without resourceVersion, and reads the items one by one;
// managedFields reach the engine only when it keeps them.
func TestEngineStreamsMetadataLists(t *testing.T) {
	const n = 40
	pods := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "55"}}
	for i := range n {
		pod := memoryPod(fmt.Sprintf("p-%04d", i), fmt.Sprintf("node-%d", i%3), "web", strconv.Itoa(i+1))
		pod.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
		pods.Items = append(pods.Items, *pod)
	}
	for name, mode := range map[string]ManagedFields{"drop": DropManagedFields, "keep": KeepManagedFields} {
		t.Run(name, func(t *testing.T) {
			srv := &listServer{pods: pods}
			var withFields atomic.Int64
			reduce := func(obj interface{}) (interface{}, error) {
				m := obj.(*metav1.PartialObjectMetadata)
				if len(m.ManagedFields) > 0 {
					withFields.Add(1)
				}
				return &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, ResourceVersion: m.ResourceVersion}}, nil
			}
			e := startListEngine(t, srv, Config{Reduce: reduce, ManagedFields: mode, SyncTimeout: 30 * time.Second})
			srv.mu.Lock()
			lists, accepts := append([]string(nil), srv.lists...), append([]string(nil), srv.accepts...)
			srv.mu.Unlock()
			if fmt.Sprint(lists) != "[]" || len(accepts) != 1 || !strings.HasPrefix(accepts[0], "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList") {
				t.Errorf("LIST queries = %q with Accept %q, want one without options, asking for PartialObjectMetadataList in protobuf", lists, accepts)
			}
			all, err := e.Types()[0].Lookup(nil)
			if err != nil || len(all) != n {
				t.Fatalf("Lookup(nil) = %d objects, %v; want %d", len(all), err, n)
			}
			for i, obj := range all {
				if want := fmt.Sprintf("p-%04d", i); obj.(*metav1.PartialObjectMetadata).Name != want {
					t.Fatalf("cached object %d = %s, want %s", i, obj.(*metav1.PartialObjectMetadata).Name, want)
				}
			}
			if got, want := withFields.Load() > 0, mode == KeepManagedFields; got != want {
				t.Errorf("the reduce saw managedFields: %v, want %v", got, want)
			}
		})
	}
}

// startListEngine starts an engine of cfg over the pods of an API server
// that srv serves, with typed and metadata clients, and waits for its sync.
func startListEngine(t *testing.T, srv http.Handler, cfg Config) *Engine {
	t.Helper()
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	typed, err := newTypedClient(&rest.Config{Host: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	md, err := metadata.NewForConfig(&rest.Config{Host: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	mapper := (&memorySource{}).RESTMapper()
	mappings, err := Resolve(mapper, []string{"pods"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(&APIServer{Typed: typed, Metadata: md, Mapper: mapper}, mappings, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	if err := e.Start(t.Context()); err != nil {
		t.Fatalf("Start() = %v", err)
	}
	return e
}
