package offline

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/manifest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testdataSource reads testdata (a List of nodes, a Deployment and its
// ReplicaSet, a Service; a PodList as cluster-info dump writes it; a CRD
// and two of its objects) into a source, as --from does: typed where the
// scheme holds the kind, by NewSourceOf.
func testdataSource(t *testing.T) *Source {
	t.Helper()
	objs, err := manifest.Options{Typed: Typed}.ReadObjects([]string{"testdata"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSourceOf(objs, nil)
	if err != nil {
		t.Fatalf("NewSourceOf() = %v", err)
	}
	return s
}

// testdataSources are testdataSource and the source NewSource makes of
// testdata read unstructured.
func testdataSources(t *testing.T) map[string]*Source {
	t.Helper()
	objs, err := manifest.Read([]string{"testdata"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSource(objs, nil)
	if err != nil {
		t.Fatalf("NewSource() = %v", err)
	}
	return map[string]*Source{"NewSourceOf": testdataSource(t), "NewSource": s}
}

func TestResolve(t *testing.T) {
	s := testdataSource(t)
	tests := []struct {
		arg  string
		want string // group/version/resource, kind
	}{
		{"po", "/v1, Resource=pods Pod"},
		{"pods", "/v1, Resource=pods Pod"},
		{"pod", "/v1, Resource=pods Pod"},
		{"Pod", "/v1, Resource=pods Pod"},
		{"pods.v1.", "/v1, Resource=pods Pod"},
		{"deploy", "apps/v1, Resource=deployments Deployment"},
		{"deploy.apps", "apps/v1, Resource=deployments Deployment"},
		{"deployments.v1.apps", "apps/v1, Resource=deployments Deployment"},
		{"ev", "/v1, Resource=events Event"},
		{"events.events.k8s.io", "events.k8s.io/v1, Resource=events Event"},
		{"no", "/v1, Resource=nodes Node"},
		{"svc", "/v1, Resource=services Service"},
		{"ep", "/v1, Resource=endpoints Endpoints"},
		{"sts", "apps/v1, Resource=statefulsets StatefulSet"},
		{"cj", "batch/v1, Resource=cronjobs CronJob"},
		{"hpa", "autoscaling/v2, Resource=horizontalpodautoscalers HorizontalPodAutoscaler"},
		{"netpol", "networking.k8s.io/v1, Resource=networkpolicies NetworkPolicy"},
		{"pc", "scheduling.k8s.io/v1, Resource=priorityclasses PriorityClass"},
		{"crd", "apiextensions.k8s.io/v1, Resource=customresourcedefinitions CustomResourceDefinition"},
		{"wd", "example.com/v1, Resource=widgets Widget"},
		{"widget", "example.com/v1, Resource=widgets Widget"},
		{"widgets.example.com", "example.com/v1, Resource=widgets Widget"},
		{"widgets.v1beta1.example.com", "example.com/v1beta1, Resource=widgets Widget"},
		{"Widget", "example.com/v1, Resource=widgets Widget"},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			mappings, err := engine.Resolve(s.RESTMapper(), []string{tt.arg})
			if err != nil {
				t.Fatalf("Resolve(%s) = %v", tt.arg, err)
			}
			if got := mappings[0].Resource.String() + " " + mappings[0].GroupVersionKind.Kind; got != tt.want {
				t.Errorf("Resolve(%s) = %s, want %s", tt.arg, got, tt.want)
			}
		})
	}
	if _, err := engine.Resolve(s.RESTMapper(), []string{"gadgets"}); err == nil || !strings.Contains(err.Error(), `resource type "gadgets"`) {
		t.Errorf("Resolve(gadgets) = %v, want an unknown resource type", err)
	}
}

// TestResolveOtherKinds checks that a kind neither built in nor defined by
// a CRD read resolves by kind and guessed resource, with its scope taken
// from the objects.
func TestResolveOtherKinds(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "acme.io/v2", "kind": "Gizmo", "metadata": map[string]interface{}{"name": "g", "namespace": "x"},
	}}
	s, err := NewSource([]*unstructured.Unstructured{obj}, []*meta.RESTMapping{{
		Resource:         schema.GroupVersionResource{Group: "acme.io", Version: "v1", Resource: "sprockets"},
		GroupVersionKind: schema.GroupVersionKind{Group: "acme.io", Version: "v1", Kind: "Sprocket"},
		Scope:            meta.RESTScopeRoot,
	}})
	if err != nil {
		t.Fatal(err)
	}
	for arg, want := range map[string]string{
		"gizmos": "acme.io/v2, Resource=gizmos namespace", "Gizmo": "acme.io/v2, Resource=gizmos namespace",
		"sprockets": "acme.io/v1, Resource=sprockets root",
	} {
		mappings, err := engine.Resolve(s.RESTMapper(), []string{arg})
		if err != nil {
			t.Fatalf("Resolve(%s) = %v", arg, err)
		}
		if got := mappings[0].Resource.String() + " " + string(mappings[0].Scope.Name()); got != want {
			t.Errorf("Resolve(%s) = %s, want %s", arg, got, want)
		}
	}
}

// list lists resource through s with opts and returns the storage keys.
func list(t *testing.T, s *Source, resource, namespace string, opts metav1.ListOptions) ([]string, error) {
	t.Helper()
	mappings, err := engine.Resolve(s.RESTMapper(), []string{resource})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := engine.List(context.Background(), s, mappings[0], namespace, true, opts)
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, item := range items {
		a, _ := meta.Accessor(item)
		keys = append(keys, key(a.GetNamespace(), a.GetName()))
	}
	return keys, nil
}

func TestListSelectors(t *testing.T) {
	for name, s := range testdataSources(t) {
		t.Run(name, func(t *testing.T) { testListSelectors(t, s) })
	}
}

func testListSelectors(t *testing.T, s *Source) {
	tests := []struct {
		resource, namespace, labels, fields string
		want                                string
		wantErr                             string
	}{
		{resource: "pods", want: "batch/job-x shop/db-0 shop/web-5d8f-a shop/web-5d8f-b"},
		{resource: "pods", namespace: "shop", labels: "app=web", want: "shop/web-5d8f-a shop/web-5d8f-b"},
		{resource: "pods", labels: "app in (db,job)", want: "batch/job-x shop/db-0"},
		{resource: "pods", fields: "spec.nodeName=worker-1", want: "shop/db-0 shop/web-5d8f-a"},
		{resource: "pods", fields: "spec.host=worker-1", want: "shop/db-0 shop/web-5d8f-a"},
		{resource: "pods", fields: "status.phase!=Running", want: "batch/job-x shop/db-0"},
		{resource: "pods", fields: "status.podIP=10.1.0.2", want: "shop/web-5d8f-b"},
		{resource: "pods", fields: "spec.hostNetwork=false,metadata.namespace=shop", want: "shop/db-0 shop/web-5d8f-a shop/web-5d8f-b"},
		{resource: "pods", fields: "metadata.name=db-0", want: "shop/db-0"},
		{resource: "pods", fields: "spec.nodeName=", want: ""},
		{resource: "nodes", fields: "spec.unschedulable=true", want: "worker-2"},
		{resource: "nodes", fields: "spec.unschedulable=false", want: "worker-1"},
		{resource: "services", fields: "spec.type=ClusterIP", want: "shop/web"},
		{resource: "widgets", namespace: "shop", labels: "color=red", want: "shop/red"},
		{resource: "widgets", fields: "metadata.name=blue", want: "shop/blue"},
		{resource: "pods", fields: "spec.foo=x", wantErr: "field label not supported: spec.foo"},
		{resource: "nodes", fields: "metadata.namespace=x", wantErr: "field label not supported: metadata.namespace"},
		{resource: "deployments", fields: "status.replicas=2", wantErr: `"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{resource: "widgets", fields: "spec.size=3", wantErr: `"spec.size" is not a known field selector`},
	}
	for _, tt := range tests {
		t.Run(tt.resource+" "+tt.labels+" "+tt.fields, func(t *testing.T) {
			keys, err := list(t, s, tt.resource, tt.namespace, metav1.ListOptions{LabelSelector: tt.labels, FieldSelector: tt.fields})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("list = %v, %v; want error %q", keys, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(keys, " "); got != tt.want {
				t.Errorf("list = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFieldsOfOtherKinds checks the selectable fields of events, secrets,
// namespaces, jobs and CSRs.
func TestFieldsOfOtherKinds(t *testing.T) {
	obj := func(apiVersion, kind, ns, name string, fields map[string]interface{}) *unstructured.Unstructured {
		o := map[string]interface{}{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]interface{}{"name": name, "namespace": ns}}
		for k, v := range fields {
			o[k] = v
		}
		return &unstructured.Unstructured{Object: o}
	}
	objs := []*unstructured.Unstructured{
		obj("v1", "Event", "shop", "e1", map[string]interface{}{"involvedObject": map[string]interface{}{"kind": "Pod", "name": "web"}, "reason": "Killing", "type": "Normal", "source": map[string]interface{}{"component": "kubelet"}}),
		obj("v1", "Event", "shop", "e2", map[string]interface{}{"involvedObject": map[string]interface{}{"kind": "Node", "name": "w1"}, "reason": "Ready", "type": "Warning", "reportingComponent": "nc"}),
		obj("events.k8s.io/v1", "Event", "shop", "e3", map[string]interface{}{"regarding": map[string]interface{}{"kind": "Pod", "name": "web"}, "reason": "Pulled", "reportingController": "kubelet"}),
		obj("v1", "Secret", "shop", "s1", map[string]interface{}{"type": "kubernetes.io/tls"}),
		obj("v1", "Secret", "shop", "s2", map[string]interface{}{"type": "Opaque"}),
		obj("v1", "Namespace", "", "shop", map[string]interface{}{"status": map[string]interface{}{"phase": "Terminating"}}),
		obj("v1", "Namespace", "", "dev", map[string]interface{}{"status": map[string]interface{}{"phase": "Active"}}),
		obj("batch/v1", "Job", "shop", "j1", map[string]interface{}{"status": map[string]interface{}{"succeeded": int64(1)}}),
		obj("batch/v1", "Job", "shop", "j2", nil),
		obj("certificates.k8s.io/v1", "CertificateSigningRequest", "", "c1", map[string]interface{}{"spec": map[string]interface{}{"signerName": "kubernetes.io/kubelet-serving", "request": "", "usages": []interface{}{}}}),
		obj("v1", "ReplicationController", "shop", "rc1", map[string]interface{}{"status": map[string]interface{}{"replicas": int64(3)}}),
	}
	s, err := NewSource(objs, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The same objects typed, whose fields are made on first use.
	var typedObjs []runtime.Object
	for _, u := range objs {
		typed := Typed(u.GroupVersionKind())
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
			t.Fatal(err)
		}
		typed.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
		typedObjs = append(typedObjs, typed)
	}
	typedSource, err := NewSourceOf(typedObjs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Source{"NewSource": s, "NewSourceOf": typedSource} {
		t.Run(name, func(t *testing.T) { testFieldsOfOtherKinds(t, s) })
	}
}

func testFieldsOfOtherKinds(t *testing.T, s *Source) {
	tests := []struct{ resource, fields, want string }{
		{"events", "involvedObject.kind=Pod", "shop/e1"},
		{"events", "involvedObject.name=w1,type=Warning", "shop/e2"},
		{"events", "source=kubelet", "shop/e1"},
		{"events", "source=nc", "shop/e2"},
		{"events", "reportingComponent=nc", "shop/e2"},
		{"events.events.k8s.io", "regarding.name=web", "shop/e3"},
		{"events.events.k8s.io", "reportingController=kubelet", "shop/e3"},
		{"secrets", "type=kubernetes.io/tls", "shop/s1"},
		{"namespaces", "status.phase=Active", "dev"},
		{"jobs", "status.successful=1", "shop/j1"},
		{"jobs", "status.successful=0", "shop/j2"},
		{"csr", "spec.signerName=kubernetes.io/kubelet-serving", "c1"},
		{"rc", "status.replicas=3", "shop/rc1"},
	}
	for _, tt := range tests {
		t.Run(tt.resource+" "+tt.fields, func(t *testing.T) {
			keys, err := list(t, s, tt.resource, "", metav1.ListOptions{FieldSelector: tt.fields})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(keys, " "); got != tt.want {
				t.Errorf("list = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFeedForms checks that built-in types are fed typed, as the live
// source feeds them, and other types unstructured.
func TestFeedForms(t *testing.T) {
	s := testdataSource(t)
	for resource, want := range map[string]engine.InformerKind{"pods": engine.Typed, "deployments": engine.Typed, "widgets": engine.Dynamic, "crd": engine.Dynamic} {
		mappings, err := engine.Resolve(s.RESTMapper(), []string{resource})
		if err != nil {
			t.Fatal(err)
		}
		feed, err := s.Feed(mappings[0], "", false)
		if err != nil {
			t.Fatal(err)
		}
		if feed.Kind != want || !feed.NoWatchList {
			t.Errorf("Feed(%s) = kind %v, NoWatchList %v; want %v, true", resource, feed.Kind, feed.NoWatchList, want)
		}
	}
	mappings, _ := engine.Resolve(s.RESTMapper(), []string{"pods"})
	obj, err := engine.Get(context.Background(), s, mappings[0], "shop", "web-5d8f-a")
	if err != nil {
		t.Fatal(err)
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName != "worker-1" || pod.Spec.Containers[0].Resources.Requests.Cpu().String() != "500m" {
		t.Errorf("Get(pods shop/web-5d8f-a) = %#v, want a typed pod on worker-1 requesting 500m", obj)
	}
}

// startEngine starts an engine of resource over s with cfg and events to q.
func startEngine(t *testing.T, s *Source, resource string, cfg engine.Config, q *engine.Queue) *engine.Engine {
	t.Helper()
	mappings, err := engine.Resolve(s.RESTMapper(), []string{resource})
	if err != nil {
		t.Fatal(err)
	}
	cfg.FullObjects = true
	cfg.SyncTimeout = 10 * time.Second
	e, err := engine.New(s, mappings, cfg)
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	t.Cleanup(e.Shutdown)
	if q != nil {
		if err := e.SendEvents(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Start(t.Context()); err != nil {
		t.Fatalf("Start() = %v", err)
	}
	return e
}

func popEvent(t *testing.T, q *engine.Queue) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	ev, ok := q.Pop(ctx)
	if !ok {
		t.Fatal("no event within 5s")
	}
	return string(ev.Type) + " " + ev.Key
}

// TestEngineOverSource checks that an engine over the source syncs,
// applies label and field selectors, answers index lookups, and gets the
// changes Apply makes, an object leaving the selection as a delete.
func TestEngineOverSource(t *testing.T) {
	s := testdataSource(t)
	node, err := (*index.Set)(nil).Lookup("node")
	if err != nil {
		t.Fatal(err)
	}
	q := engine.NewQueue(1000)
	e := startEngine(t, s, "po", engine.Config{
		Namespaces: []string{"shop"}, LabelSelector: "app=web", FieldSelector: "status.phase=Running",
		Indexes: []index.Definition{node},
	}, q)
	objs, err := e.Types()[0].Lookup([]index.Selector{{Name: "node", Operator: index.Equals, Values: []string{"worker-2"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].(*corev1.Pod).Name != "web-5d8f-b" {
		t.Fatalf("Lookup(node=worker-2) = %v, want [web-5d8f-b]", objs)
	}
	for _, want := range []string{"ADDED shop/web-5d8f-a", "ADDED shop/web-5d8f-b"} {
		if got := popEvent(t, q); got != want {
			t.Fatalf("initial event = %s, want %s", got, want)
		}
	}

	pod := func(name, app, phase string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]interface{}{"name": name, "namespace": "shop", "labels": map[string]interface{}{"app": app}},
			"spec":     map[string]interface{}{"nodeName": "worker-1"},
			"status":   map[string]interface{}{"phase": phase},
		}}
	}
	steps := []struct {
		t    watch.EventType
		obj  *unstructured.Unstructured
		want string // "" if the engine's selection does not see it
	}{
		{watch.Added, pod("web-new", "web", "Running"), "ADDED shop/web-new"},
		{watch.Added, pod("db-new", "db", "Running"), ""},
		{watch.Modified, pod("web-new", "web", "Failed"), "DELETED shop/web-new"},
		{watch.Modified, pod("web-new", "web", "Running"), "ADDED shop/web-new"},
		{watch.Modified, pod("web-5d8f-a", "web", "Running"), "MODIFIED shop/web-5d8f-a"},
		{watch.Deleted, pod("web-new", "web", "Running"), "DELETED shop/web-new"},
	}
	lastRV := s.rv
	for _, step := range steps {
		if err := s.Apply(step.t, step.obj); err != nil {
			t.Fatalf("Apply(%s %s) = %v", step.t, step.obj.GetName(), err)
		}
		if s.rv <= lastRV {
			t.Fatalf("resourceVersion after Apply = %d, not above %d", s.rv, lastRV)
		}
		lastRV = s.rv
		if step.want == "" {
			continue
		}
		if got := popEvent(t, q); got != step.want {
			t.Fatalf("after Apply(%s %s): event %s, want %s", step.t, step.obj.GetName(), got, step.want)
		}
	}
	if err := s.Apply(watch.Deleted, pod("gone", "web", "Running")); err == nil {
		t.Error("Apply(DELETED of a missing object) = nil, want an error")
	}
	if err := s.Apply(watch.Bookmark, pod("x", "web", "Running")); err == nil {
		t.Error("Apply(BOOKMARK) = nil, want an error")
	}
}

// TestEngineRefusesField checks that an engine asking for a field selector
// the type does not support fails its sync with the API server's words.
func TestEngineRefusesField(t *testing.T) {
	s := testdataSource(t)
	mappings, err := engine.Resolve(s.RESTMapper(), []string{"deploy"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(s, mappings, engine.Config{FieldSelector: "spec.paused=true", FullObjects: true, SyncTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown()
	if err := e.Start(t.Context()); err == nil || !strings.Contains(err.Error(), `"spec.paused" is not a known field selector`) {
		t.Fatalf("Start() = %v, want the field selector refused", err)
	}
}

// TestWatchFromEarlier checks that a watch from a resourceVersion a list
// returned gets the changes made since, and one from before the kept
// changes is told to list again (410 Gone).
func TestWatchFromEarlier(t *testing.T) {
	s := testdataSource(t)
	mappings, _ := engine.Resolve(s.RESTMapper(), []string{"cm"})
	feed, err := s.Feed(mappings[0], "x", true)
	if err != nil {
		t.Fatal(err)
	}
	list, err := feed.ListWithContext(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	listRV := list.(*corev1.ConfigMapList).ResourceVersion
	for _, name := range []string{"a", "b"} {
		cm := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]interface{}{"name": name, "namespace": "x"}}}
		if err := s.Apply(watch.Added, cm); err != nil {
			t.Fatal(err)
		}
	}
	w, err := feed.WatchWithContext(t.Context(), metav1.ListOptions{ResourceVersion: listRV})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, want := range []string{"a", "b"} {
		select {
		case ev := <-w.ResultChan():
			if cm, ok := ev.Object.(*corev1.ConfigMap); !ok || ev.Type != watch.Added || cm.Name != want {
				t.Fatalf("event = %s %#v, want ADDED %s", ev.Type, ev.Object, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no event for %s", want)
		}
	}
	for i := 0; i < logSize+1; i++ {
		cm := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]interface{}{"name": "c", "namespace": "y"}}}
		if err := s.Apply(watch.Modified, cm); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := feed.WatchWithContext(t.Context(), metav1.ListOptions{ResourceVersion: listRV}); err == nil || !strings.Contains(err.Error(), "too old resource version") {
		t.Fatalf("Watch(from before the kept changes) = %v, want 410 Gone", err)
	}
}

func TestFinish(t *testing.T) {
	s := testdataSource(t)
	select {
	case <-s.Finished():
		t.Fatal("Finished() closed before Finish")
	default:
	}
	s.Finish()
	s.Finish()
	select {
	case <-s.Finished():
	default:
		t.Fatal("Finished() open after Finish")
	}
}

// TestManifestWithoutNamespace checks that an object of a namespaced kind
// without a namespace is held in "default", as kubectl apply would create
// it, and that a cluster-scoped one stays without.
func TestManifestWithoutNamespace(t *testing.T) {
	cm := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]interface{}{"name": "settings"}}}
	ns := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]interface{}{"name": "shop"}}}
	s, err := NewSource([]*unstructured.Unstructured{cm, ns}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for resource, want := range map[string]string{"configmaps": "default/settings", "namespaces": "shop"} {
		keys, err := list(t, s, resource, "", metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(keys, " "); got != want {
			t.Errorf("list %s = %q, want %q", resource, got, want)
		}
	}
	if cm.GetNamespace() != "" {
		t.Errorf("NewSource changed the object given: namespace %q", cm.GetNamespace())
	}

	// Typed, as --from reads them.
	typedCM := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "settings"}}
	typedNS := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: "shop"}}
	s, err = NewSourceOf([]runtime.Object{typedCM, typedNS}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for resource, want := range map[string]string{"configmaps": "default/settings", "namespaces": "shop"} {
		keys, err := list(t, s, resource, "", metav1.ListOptions{FieldSelector: "metadata.name!=x"})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(keys, " "); got != want {
			t.Errorf("NewSourceOf: list %s = %q, want %q", resource, got, want)
		}
	}
}

// TestNewSourceBadObject checks that an object that does not fit its
// kind's Go type is an error naming it.
func TestNewSourceBadObject(t *testing.T) {
	bad := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "Pod", "metadata": map[string]interface{}{"name": "p", "namespace": "x"},
		"spec": map[string]interface{}{"containers": "not a list"},
	}}
	if _, err := NewSource([]*unstructured.Unstructured{bad}, nil); err == nil || !strings.HasPrefix(err.Error(), "Pod x/p: ") {
		t.Fatalf("NewSource(bad pod) = %v, want an error naming Pod x/p", err)
	}
}
