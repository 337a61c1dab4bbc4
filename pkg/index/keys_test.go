package index

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// keysPod returns a pod in namespace ns on node (unscheduled when ""), with label app=app when
// app is not "-", running images.
func keysPod(ns, name, node, app string, images ...string) *corev1.Pod {
	pod := &corev1.Pod{
		TypeMeta:   typeMeta("v1", "Pod"),
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       podSpec(images...),
	}
	pod.Spec.NodeName = node
	if app != "-" {
		pod.Labels = map[string]string{"app": app}
	}
	return pod
}

// keysIndexer returns an indexer with the node, image and label:app indexes over five pods and a
// config map, which has no value under any of them.
func keysIndexer(t *testing.T) cache.Indexer {
	t.Helper()
	indexers := cache.Indexers{}
	for _, name := range []string{"node", "image", "label:app"} {
		def, err := (*Set)(nil).Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%q) = %v, want nil", name, err)
		}
		indexers[name] = def.Func
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	for _, obj := range []interface{}{
		keysPod("a", "web-1", "w1", "web", "nginx:1.27", "registry.example.com/envoy:1.30"),
		keysPod("a", "web-2", "w2", "web", "nginx:1.27"),
		keysPod("a", "db-1", "w1", "db", "postgres:17"),
		keysPod("a", "pending", "", "-", "nginx:1.27"),
		keysPod("b", "job-1", "w2", "", "busybox:1.36"),
		&corev1.ConfigMap{TypeMeta: typeMeta("v1", "ConfigMap"), ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "cm"}},
	} {
		if err := indexer.Add(obj); err != nil {
			t.Fatalf("Add(%T) = %v, want nil", obj, err)
		}
	}
	return indexer
}

func TestKeys(t *testing.T) {
	all := []string{"a/db-1", "a/pending", "a/web-1", "a/web-2", "b/cm", "b/job-1"}
	tests := []struct {
		name      string
		selectors []string
		want      []string
	}{
		{name: "no selector", want: all},
		{name: "equals", selectors: []string{"node=w1"}, want: []string{"a/db-1", "a/web-1"}},
		{name: "equals empty", selectors: []string{"node="}, want: []string{"a/pending"}},
		{name: "equals no object", selectors: []string{"node=w9"}, want: []string{}},
		{name: "equals one of several values", selectors: []string{"image=registry.example.com/envoy:1.30"},
			want: []string{"a/web-1"}},
		{name: "equals empty label", selectors: []string{"label:app="}, want: []string{"b/job-1"}},
		{name: "not equals", selectors: []string{"node!=w1"}, want: []string{"a/pending", "a/web-2", "b/cm", "b/job-1"}},
		{name: "not equals empty", selectors: []string{"node!="}, want: []string{"a/db-1", "a/web-1", "a/web-2", "b/cm", "b/job-1"}},
		{name: "not equals multi-valued", selectors: []string{"image!=nginx:1.27"}, want: []string{"a/db-1", "b/cm", "b/job-1"}},
		{name: "not equals unknown value", selectors: []string{"node!=w9"}, want: all},
		{name: "in", selectors: []string{"node in (w2,)"}, want: []string{"a/pending", "a/web-2", "b/job-1"}},
		{name: "in overlapping buckets", selectors: []string{"image in (nginx:1.27,registry.example.com/envoy:1.30)"},
			want: []string{"a/pending", "a/web-1", "a/web-2"}},
		{name: "notin", selectors: []string{"label:app notin (web,db)"}, want: []string{"a/pending", "b/cm", "b/job-1"}},
		{name: "exists", selectors: []string{"label:app"}, want: []string{"a/db-1", "a/web-1", "a/web-2", "b/job-1"}},
		{name: "exists counts the empty value", selectors: []string{"node"},
			want: []string{"a/db-1", "a/pending", "a/web-1", "a/web-2", "b/job-1"}},
		{name: "does not exist", selectors: []string{"!label:app"}, want: []string{"a/pending", "b/cm"}},
		{name: "does not exist node", selectors: []string{"!node"}, want: []string{"b/cm"}},

		{name: "and of positives", selectors: []string{"image=nginx:1.27", "node=w2"}, want: []string{"a/web-2"}},
		{name: "positive and negative", selectors: []string{"image=nginx:1.27", "node!="},
			want: []string{"a/web-1", "a/web-2"}},
		{name: "positive and does not exist", selectors: []string{"image=nginx:1.27", "!label:app"},
			want: []string{"a/pending"}},
		{name: "only negatives", selectors: []string{"node!=w1", "label:app notin (web)", "!image"},
			want: []string{"b/cm"}},
		{name: "empty positive", selectors: []string{"node=w9", "!label:app"}, want: []string{}},
		{name: "same index twice", selectors: []string{"node in (w1,w2)", "node!=w1"},
			want: []string{"a/web-2", "b/job-1"}},
		{name: "contradiction", selectors: []string{"label:app", "!label:app"}, want: []string{}},
	}
	indexer := keysIndexer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var selectors []Selector
			for _, s := range tt.selectors {
				sel, err := ParseSelector("--index", s)
				if err != nil {
					t.Fatalf("ParseSelector(%q) = %v, want nil", s, err)
				}
				selectors = append(selectors, sel)
			}
			got, err := Keys(indexer, selectors)
			if err != nil {
				t.Fatalf("Keys(%q) = %v, want nil", tt.selectors, err)
			}
			if len(got) != 0 || len(tt.want) != 0 {
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Keys(%q) = %q, want %q", tt.selectors, got, tt.want)
				}
			}
			// Keys must agree with Matches applied to every object.
			var scanned []string
			for _, obj := range indexer.List() {
				if matchesAll(t, indexer, selectors, obj) {
					key, _ := cache.MetaNamespaceKeyFunc(obj)
					scanned = append(scanned, key)
				}
			}
			slices.Sort(scanned)
			if !slices.Equal(got, scanned) {
				t.Errorf("Keys(%q) = %q, but Matches selects %q", tt.selectors, got, scanned)
			}
		})
	}
}

// matchesAll reports whether every selector matches the values that indexer's IndexFuncs give obj.
func matchesAll(t *testing.T, indexer cache.Indexer, selectors []Selector, obj interface{}) bool {
	t.Helper()
	for _, sel := range selectors {
		values, err := indexer.GetIndexers()[sel.Name](obj)
		if err != nil {
			t.Fatalf("%s(%T) = %v, want nil", sel.Name, obj, err)
		}
		if !sel.Matches(values) {
			return false
		}
	}
	return true
}

func TestKeysErrors(t *testing.T) {
	indexer := keysIndexer(t)
	tests := []struct {
		name      string
		selectors []Selector
		wantErr   string
	}{
		{name: "equals on an unregistered index", selectors: []Selector{{Name: "phase", Operator: Equals, Values: []string{"Running"}}},
			wantErr: `selecting phase=Running: index "phase" is not registered`},
		{name: "exists on an unregistered index", selectors: []Selector{
			{Name: "node", Operator: Exists}, {Name: "owner", Operator: Exists}},
			wantErr: `selecting owner: index "owner" is not registered`},
		{name: "does not exist on an unregistered index", selectors: []Selector{{Name: "owner", Operator: DoesNotExist}},
			wantErr: `selecting !owner: index "owner" is not registered`},
		{name: "unknown operator", selectors: []Selector{{Name: "node", Operator: "gt", Values: []string{"1"}}},
			wantErr: `selecting node gt (1): unknown operator "gt"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Keys(indexer, tt.selectors)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("Keys(%v) = %q, %v, want error %s", tt.selectors, got, err, tt.wantErr)
			}
		})
	}
}

func TestKeysFollowsUpdates(t *testing.T) {
	indexer := keysIndexer(t)
	sel, err := ParseSelector("--index", "node!=")
	if err != nil {
		t.Fatalf("ParseSelector() = %v, want nil", err)
	}
	if err := indexer.Update(keysPod("a", "pending", "w2", "-", "nginx:1.27")); err != nil {
		t.Fatalf("Update() = %v, want nil", err)
	}
	if err := indexer.Delete(keysPod("a", "web-1", "w1", "web")); err != nil {
		t.Fatalf("Delete() = %v, want nil", err)
	}
	want := []string{"a/db-1", "a/pending", "a/web-2", "b/cm", "b/job-1"}
	if got, err := Keys(indexer, []Selector{sel}); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Keys(node!=) after an update and a delete = %q, %v, want %q, nil", got, err, want)
	}
}

// TestKeysWhileIndexesAreAdded runs Keys while indexes are added to the same indexer, as the warm
// cache does when a command needs an index its running informer lacks. Under -race it fails if
// Keys reads the indexers map without the indexer's lock.
func TestKeysWhileIndexesAreAdded(t *testing.T) {
	indexer := keysIndexer(t)
	def, err := (*Set)(nil).Lookup("label:app")
	if err != nil {
		t.Fatal(err)
	}
	const added = 50
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range added {
			if err := indexer.AddIndexers(cache.Indexers{fmt.Sprintf("label:k%d", i): def.Func}); err != nil {
				t.Errorf("AddIndexers = %v", err)
				return
			}
		}
	}()
	want := []string{"a/db-1", "a/web-1"}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		got, err := Keys(indexer, []Selector{{Name: "node", Operator: Equals, Values: []string{"w1"}}})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Keys(node=w1) = %q, %v, want %q", got, err, want)
		}
	}
	if _, err := Keys(indexer, []Selector{{Name: fmt.Sprintf("label:k%d", added-1), Operator: Exists}}); err != nil {
		t.Errorf("Keys on the last added index = %v, want nil", err)
	}
}
