package offline

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/internal/realdump"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/manifest"
)

// countingOpener records the files a source opens.
type countingOpener struct {
	mu     sync.Mutex
	opened []string
}

func (o *countingOpener) open(path string) (io.ReadCloser, error) {
	o.mu.Lock()
	o.opened = append(o.opened, path)
	o.mu.Unlock()
	return os.Open(path)
}

func (o *countingOpener) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.opened
	o.opened = nil
	return out
}

// listAll resolves arg with source's mapper and lists its objects in every
// namespace.
func listAll(t *testing.T, source *Source, arg string) (*meta.RESTMapping, []runtime.Object) {
	t.Helper()
	mappings, err := engine.Resolve(source.RESTMapper(), []string{arg})
	if err != nil {
		t.Fatalf("resolving %s: %v", arg, err)
	}
	list, err := engine.List(context.Background(), source, mappings[0], "", true, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing %s: %v", arg, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		t.Fatal(err)
	}
	return mappings[0], items
}

// sameAnswers checks that a lazy dump's source and a whole read's resolve
// and list each type alike.
func sameAnswers(t *testing.T, lazy, whole *Source, types []string) {
	t.Helper()
	for _, arg := range types {
		lm, lazyItems := listAll(t, lazy, arg)
		wm, wholeItems := listAll(t, whole, arg)
		if lm.GroupVersionKind != wm.GroupVersionKind || lm.Resource != wm.Resource || lm.Scope.Name() != wm.Scope.Name() {
			t.Errorf("%s resolves to %v %v %s, want the whole read's %v %v %s", arg, lm.GroupVersionKind, lm.Resource, lm.Scope.Name(), wm.GroupVersionKind, wm.Resource, wm.Scope.Name())
		}
		if len(lazyItems) != len(wholeItems) {
			t.Errorf("%s: %d objects, want the whole read's %d", arg, len(lazyItems), len(wholeItems))
			continue
		}
		for i := range lazyItems {
			if !equality.Semantic.DeepEqual(lazyItems[i], wholeItems[i]) {
				m, _ := meta.Accessor(wholeItems[i])
				t.Errorf("%s: %s/%s differs from the whole read's", arg, m.GetNamespace(), m.GetName())
				break
			}
		}
	}
}

func wholeSource(t *testing.T, paths ...string) *Source {
	t.Helper()
	objects, err := manifest.Options{Typed: Typed, DropManagedFields: true}.ReadObjects(paths)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSourceOf(objects, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOpenDumpReal reads the real must-gather lazily: a question about
// pods opens only the files of pods (each pod is in two; it is listed
// once), and every type resolves and lists as over a whole read.
func TestOpenDumpReal(t *testing.T) {
	if testing.Short() {
		t.Skip("unpacks an 83 MB must-gather")
	}
	root, err := realdump.Unpack(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	whole := wholeSource(t, root)

	t.Run("pods", func(t *testing.T) {
		o := &countingOpener{}
		lazy, err := OpenDump([]string{root}, manifest.Options{DropManagedFields: true, Open: o.open})
		if err != nil {
			t.Fatal(err)
		}
		o.take()
		_, pods := listAll(t, lazy, "pods")
		if len(pods) != 239 {
			t.Errorf("pods: %d, want 239", len(pods))
		}
		opened := o.take()
		podFiles := 0
		for _, p := range opened {
			rel, _ := filepath.Rel(root, p)
			parts := strings.Split(filepath.ToSlash(rel), "/")
			isPods := len(parts) == 4 && parts[0] == "namespaces" && parts[2] == "core" && parts[3] == "pods.yaml" ||
				len(parts) == 5 && parts[0] == "namespaces" && parts[2] == "pods" && parts[4] == parts[3]+".yaml"
			if !isPods {
				t.Errorf("query pods opened %s", rel)
			}
			podFiles++
		}
		if podFiles < 239 {
			t.Errorf("query pods opened %d files, want every pods file (at least one per pod)", podFiles)
		}
		sameAnswers(t, lazy, whole, []string{"pods"})
		if opened := o.take(); len(opened) != 0 {
			t.Errorf("asking for pods again opened %d files, want none", len(opened))
		}
	})

	// kubectl's way of resolving a name reads a.b.c first as resource a,
	// version b, group c: a question about a group no file can hold
	// types of opens nothing, and the name then resolves with the files
	// of its own type alone.
	t.Run("names with a group", func(t *testing.T) {
		o := &countingOpener{}
		lazy, err := OpenDump([]string{root}, manifest.Options{DropManagedFields: true, Open: o.open})
		if err != nil {
			t.Fatal(err)
		}
		o.take()
		sameAnswers(t, lazy, whole, []string{"endpointslices.discovery.k8s.io", "controllerrevisions.apps", "jobs.batch"})
		for _, p := range o.take() {
			rel, _ := filepath.Rel(root, p)
			parts := strings.Split(filepath.ToSlash(rel), "/")
			if len(parts) != 4 || parts[0] != "namespaces" || parts[2]+"/"+parts[3] != "discovery.k8s.io/endpointslices.yaml" && parts[2]+"/"+parts[3] != "batch/jobs.yaml" {
				t.Errorf("resolving and listing endpointslices, controllerrevisions and jobs opened %s", rel)
			}
		}
		if _, err := engine.Resolve(lazy.RESTMapper(), []string{"gadgets.example.com"}); err == nil || !strings.Contains(err.Error(), `"gadgets"`) {
			t.Errorf("resolving gadgets.example.com = %v, want no such type", err)
		}
		if opened := o.take(); len(opened) != 0 {
			t.Errorf("resolving gadgets.example.com opened %d files, want none (no file can hold a type of example.com)", len(opened))
		}
	})

	t.Run("every type", func(t *testing.T) {
		lazy, err := OpenDump([]string{root}, manifest.Options{DropManagedFields: true})
		if err != nil {
			t.Fatal(err)
		}
		sameAnswers(t, lazy, whole, []string{
			"po", "events", "ev", "nodes", "ns", "deploy", "rs", "ds", "sts", "hpa", "cronjobs", "jobs", "secrets", "cm", "svc",
			"endpointslices", "pdb", "routes", "imagestreams", "machines", "clusteroperators", "crd",
			"prometheusrules", "csidrivers", "validatingwebhookconfigurations", "events.events.k8s.io",
		})
		// Owners and relations resolve kinds.
		for _, gk := range []string{"ReplicaSet.apps", "Machine.machine.openshift.io", "Route.route.openshift.io", "Node"} {
			gvk, _ := metaGroupKind(gk)
			lm, lerr := lazy.RESTMapper().RESTMapping(gvk)
			wm, werr := whole.RESTMapper().RESTMapping(gvk)
			if (lerr == nil) != (werr == nil) || lerr == nil && (lm.Resource != wm.Resource || lm.GroupVersionKind != wm.GroupVersionKind) {
				t.Errorf("RESTMapping(%s) = %v, %v, want the whole read's %v, %v", gk, lm, lerr, wm, werr)
			}
		}
		if _, err := engine.Resolve(lazy.RESTMapper(), []string{"gadgets"}); err == nil || !strings.Contains(err.Error(), `"gadgets"`) {
			t.Errorf("resolving gadgets = %v, want no such type", err)
		}
		if got, want := names(lazy.Resources()), names(whole.Resources()); !reflect.DeepEqual(got, want) {
			t.Errorf("Resources() lists %d types, want the whole read's %d", len(got), len(want))
		}
	})

	t.Run("time", func(t *testing.T) {
		lazy, err := OpenDump([]string{root}, manifest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := lazy.Time()
		if err != nil || got.Time.Format(time.RFC3339) != "2021-08-03T10:13:47Z" || !got.Stamped {
			t.Errorf("Time() = %+v, %v, want 2021-08-03T10:13:47Z from the timestamp file", got, err)
		}
	})
}

func metaGroupKind(s string) (schema.GroupKind, error) {
	kind, group, _ := strings.Cut(s, ".")
	return schema.GroupKind{Group: group, Kind: kind}, nil
}

// names lists the group/version/resource of every type listed.
func names(lists []*metav1.APIResourceList) []string {
	var out []string
	for _, l := range lists {
		for _, r := range l.APIResources {
			out = append(out, fmt.Sprintf("%s %s %s %v", l.GroupVersion, r.Name, r.Kind, r.Namespaced))
		}
	}
	sort.Strings(out)
	return out
}

// TestOpenDumpTestdata checks a dump without a layout (its files'
// kinds scanned) answers as a whole read does.
func TestOpenDumpTestdata(t *testing.T) {
	lazy, err := OpenDump([]string{"testdata"}, manifest.Options{DropManagedFields: true})
	if err != nil {
		t.Fatal(err)
	}
	whole := wholeSource(t, "testdata")
	sameAnswers(t, lazy, whole, []string{"pods", "nodes", "deploy", "rs", "svc", "crd", "widgets", "wd"})
	if got, want := names(lazy.Resources()), names(whole.Resources()); !reflect.DeepEqual(got, want) {
		t.Errorf("Resources() = %v, want the whole read's %v", got, want)
	}
	if got, err := lazy.Time(); err != manifest.ErrNoDumpTime {
		t.Errorf("Time() = %+v, %v, want ErrNoDumpTime: testdata's objects have no times", got, err)
	}
}

// TestOpenDumpMustGatherCRDList checks a must-gather whose CRDs are in one
// list file: a custom resource resolves as over a whole read, by its name
// and by its CRD's short name, and a question about pods reads neither.
func TestOpenDumpMustGatherCRDList(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("timestamp", "2026-11-26 01:00:00.000000000 +0000 UTC m=+0.000000001\n")
	write("cluster-scoped-resources/apiextensions.k8s.io/customresourcedefinitions.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: widgets.example.com, resourceVersion: "5"}
  spec:
    group: example.com
    scope: Namespaced
    names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
    versions:
    - {name: v1, served: true, storage: true}
    - {name: v1beta1, served: true, storage: false}
`)
	write("namespaces/shop/example.com/widgets.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: blue, namespace: shop, resourceVersion: "50"}
  spec: {size: 3}
`)
	write("namespaces/shop/core/pods.yaml", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a, namespace: shop}\n")
	whole := wholeSource(t, dir)
	for _, arg := range []string{"widgets", "wd", "widget.example.com"} {
		lazy, err := OpenDump([]string{dir}, manifest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameAnswers(t, lazy, whole, []string{arg})
	}
	o := &countingOpener{}
	lazy, err := OpenDump([]string{dir}, manifest.Options{Open: o.open})
	if err != nil {
		t.Fatal(err)
	}
	sameAnswers(t, lazy, whole, []string{"pods"})
	if opened := o.take(); len(opened) != 1 || !strings.HasSuffix(opened[0], "pods.yaml") {
		t.Errorf("query pods opened %v, want only namespaces/shop/core/pods.yaml", opened)
	}
}

// TestOpenDumpConcurrent resolves and lists types from several goroutines
// at once, as an engine's related types do: each type is read once, and
// every answer is a whole read's.
func TestOpenDumpConcurrent(t *testing.T) {
	lazy, err := OpenDump([]string{"testdata"}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	whole := wholeSource(t, "testdata")
	types := []string{"pods", "nodes", "deploy", "rs", "svc", "widgets", "crd"}
	var wg sync.WaitGroup
	for range 4 {
		for _, arg := range types {
			wg.Go(func() { sameAnswers(t, lazy, whole, []string{arg}) })
		}
	}
	wg.Wait()
}
