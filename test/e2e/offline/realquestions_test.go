package offline

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/internal/realdump"
)

// TestRealMustGatherQuestions asks a real must-gather (an OpenShift CI
// cluster's) four questions and checks each answer against the test's own
// reading of the must-gather's files by the documented rules: pods per node;
// pods per namespace and owner-root (controller references followed up
// through the objects the files hold, stopping at a reference whose object
// is not there or has another UID); a Deployment's ownership tree (every
// object whose ownerReferences name an object of the tree, down from the
// Deployment); and the pods with a FailedScheduling Event (core/v1 Events
// whose involvedObject is the pod: by UID, or by name when the Event has no
// UID).
func TestRealMustGatherQuestions(t *testing.T) {
	root, err := realdump.Unpack(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	objs := mustGatherObjects(t, root)
	var pods []*unstructured.Unstructured
	for _, o := range objs.all {
		if o.GetKind() == "Pod" && o.GroupVersionKind().Group == "" {
			pods = append(pods, o)
		}
	}
	if len(pods) != 239 {
		t.Fatalf("the must-gather's files hold %d pods, want its 239", len(pods))
	}

	t.Run("pods per node", func(t *testing.T) {
		want := map[string]int{}
		for _, p := range pods {
			node, _, _ := unstructured.NestedString(p.Object, "spec", "nodeName")
			if node == "" {
				node = "<none>"
			}
			want[node]++
		}
		got := groupCounts(t, answerOf(t, "query", "pods", "-A", "--from", root, "--group-by", "node"), "NODE")
		compareCounts(t, got, want)
	})

	t.Run("pods per namespace and owner-root", func(t *testing.T) {
		want := map[string]int{}
		for _, p := range pods {
			want[p.GetNamespace()+" "+objs.ownerRoot(p)]++
		}
		got := groupCounts(t, answerOf(t, "query", "pods", "-A", "--from", root, "--group-by", "namespace,owner-root"), "NAMESPACE", "OWNER-ROOT")
		compareCounts(t, got, want)
		if want["openshift-apiserver Deployment/apiserver"] != 3 {
			t.Errorf("the files' owner roots: %v, want the 3 pods of Deployment openshift-apiserver/apiserver among them", want)
		}
	})

	t.Run("tree of a deployment", func(t *testing.T) {
		const ns, name = "openshift-apiserver", "apiserver"
		deploy := objs.find(schema.GroupKind{Group: "apps", Kind: "Deployment"}, ns, name)
		if deploy == nil {
			t.Fatalf("the files hold no Deployment %s/%s", ns, name)
		}
		want := []string{resourceName(deploy)}
		uids := map[string]bool{string(deploy.GetUID()): true}
		for grew := true; grew; {
			grew = false
			for _, o := range objs.all {
				if uids[string(o.GetUID())] {
					continue
				}
				for _, ref := range o.GetOwnerReferences() {
					if uids[string(ref.UID)] {
						uids[string(o.GetUID())] = true
						want = append(want, resourceName(o))
						grew = true
						break
					}
				}
			}
		}
		out := answerOf(t, "tree", "deploy/"+name, "-n", ns, "--from", root, "-o", "name")
		got := strings.Fields(out)
		if got[0] != want[0] {
			t.Errorf("the tree's root is %s, want %s", got[0], want[0])
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("tree deploy/%s -n %s -o name = %v, want %v (the files' objects under it by ownerReferences)", name, ns, got, want)
		}
		if len(want) < 5 {
			t.Errorf("the tree from the files has %d objects, want a Deployment, its ReplicaSets and pods", len(want))
		}
	})

	t.Run("pods with a FailedScheduling event", func(t *testing.T) {
		var want []string
		for _, p := range pods {
			if objs.hasEvent(p, "FailedScheduling") {
				want = append(want, p.GetNamespace()+"/"+p.GetName())
			}
		}
		if len(want) == 0 {
			t.Fatal("no pod of the must-gather has a FailedScheduling event: the question is not asked")
		}
		out := answerOf(t, "query", "pods", "-A", "--from", root, "--index", "event.reason=FailedScheduling",
			"-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name", "--no-headers")
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(line); len(f) == 2 {
				got = append(got, f[0]+"/"+f[1])
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("pods with event.reason=FailedScheduling = %v, want %v", got, want)
		}
	})
}

// answerOf runs the plugin offline and returns its stdout; a failure fails t.
func answerOf(t *testing.T, args ...string) string {
	t.Helper()
	r := offline(t, args...)
	if r.ExitCode != 0 {
		t.Fatalf("%v: %s", args, r)
	}
	return r.Stdout
}

// groupCounts reads a table of groups: the cells of keys joined by a space,
// each with its COUNT.
func groupCounts(t *testing.T, out string, keys ...string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, row := range tableCells(t, out, append(keys, "COUNT")...) {
		var key []string
		for _, k := range keys {
			key = append(key, row[k])
		}
		n, err := strconv.Atoi(row["COUNT"])
		if err != nil {
			t.Fatalf("COUNT %q: %v\n%s", row["COUNT"], err, out)
		}
		got[strings.Join(key, " ")] += n
	}
	return got
}

func compareCounts(t *testing.T, got, want map[string]int) {
	t.Helper()
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d, want %d", k, got[k], n)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %d, which the files do not have", k, n)
		}
	}
}

// mustGatherFiles are the objects of a must-gather's files, each once.
type mustGatherFiles struct {
	all []*unstructured.Unstructured
	// byKey finds an object by group, kind, namespace ("" when
	// cluster-scoped) and name.
	byKey map[string]*unstructured.Unstructured
}

// mustGatherObjects reads every object of the YAML files of root's
// namespaces/ and cluster-scoped-resources/ (lists and single objects),
// each object once.
func mustGatherObjects(t *testing.T, root string) *mustGatherFiles {
	t.Helper()
	m := &mustGatherFiles{byKey: map[string]*unstructured.Unstructured{}}
	add := func(o *unstructured.Unstructured) {
		gk := o.GroupVersionKind().GroupKind()
		key := fileObjectKey(gk, o.GetNamespace(), o.GetName())
		if _, dup := m.byKey[key]; dup || o.GetName() == "" {
			return
		}
		m.byKey[key] = o
		m.all = append(m.all, o)
	}
	for _, dir := range []string{"namespaces", "cluster-scoped-resources"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var o unstructured.Unstructured
			if err := yaml.Unmarshal(data, &o.Object); err != nil || o.Object == nil || o.GetKind() == "" {
				return nil // not an object: the files beside them (logs are not .yaml)
			}
			if o.IsList() {
				list, err := o.ToList()
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				for i := range list.Items {
					add(&list.Items[i])
				}
				return nil
			}
			add(&o)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func fileObjectKey(gk schema.GroupKind, namespace, name string) string {
	return gk.String() + " " + namespace + "/" + name
}

// find returns the object of gk named name in namespace, or, when there
// is none, the cluster-scoped one of that name; nil when the files hold
// neither.
func (m *mustGatherFiles) find(gk schema.GroupKind, namespace, name string) *unstructured.Unstructured {
	if o, ok := m.byKey[fileObjectKey(gk, namespace, name)]; ok {
		return o
	}
	return m.byKey[fileObjectKey(gk, "", name)]
}

// ownerRoot is o's owner-root value as the README states it: KIND/NAME of
// the last controller reference reached up from o, following a reference
// only while the files hold its object with its UID; <none> without a
// controller reference.
func (m *mustGatherFiles) ownerRoot(o *unstructured.Unstructured) string {
	root := "<none>"
	seen := map[string]bool{string(o.GetUID()): true}
	for cur, depth := o, 0; cur != nil && depth < 16; depth++ {
		ref := controllerRef(cur)
		if ref == nil || seen[string(ref.UID)] {
			break
		}
		seen[string(ref.UID)] = true
		root = ref.Kind + "/" + ref.Name
		gv, _ := schema.ParseGroupVersion(ref.APIVersion)
		owner := m.find(schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, cur.GetNamespace(), ref.Name)
		if owner == nil || string(owner.GetUID()) != ref.UID {
			break
		}
		cur = owner
	}
	return root
}

func controllerRef(o *unstructured.Unstructured) *struct{ APIVersion, Kind, Name, UID string } {
	for _, ref := range o.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			return &struct{ APIVersion, Kind, Name, UID string }{ref.APIVersion, ref.Kind, ref.Name, string(ref.UID)}
		}
	}
	return nil
}

// hasEvent reports whether a core/v1 Event of o's namespace with reason
// is about o: its involvedObject has o's UID, or, without a UID, o's kind
// and name.
func (m *mustGatherFiles) hasEvent(o *unstructured.Unstructured, reason string) bool {
	for _, e := range m.all {
		if e.GetKind() != "Event" || e.GroupVersionKind().Group != "" || e.GetNamespace() != o.GetNamespace() {
			continue
		}
		if r, _, _ := unstructured.NestedString(e.Object, "reason"); r != reason {
			continue
		}
		involved, _, _ := unstructured.NestedStringMap(e.Object, "involvedObject")
		if uid := involved["uid"]; uid != "" {
			if uid == string(o.GetUID()) {
				return true
			}
			continue
		}
		if involved["kind"] == o.GetKind() && involved["name"] == o.GetName() {
			return true
		}
	}
	return false
}

// resourceName is o as `kubectl get -o name` names it: resource.group/name.
func resourceName(o *unstructured.Unstructured) string {
	gvk := o.GroupVersionKind()
	resource := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		resource += "." + gvk.Group
	}
	return resource + "/" + o.GetName()
}
