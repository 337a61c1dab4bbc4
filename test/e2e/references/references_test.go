package references

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// groupCounts parses `query --group-by uses` output: value → count.
func groupCounts(t *testing.T, out string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for i, l := range lines(out) {
		fields := strings.Fields(l)
		if i == 0 {
			if len(fields) != 2 || fields[1] != "COUNT" {
				t.Fatalf("group-by header = %q, want VALUE COUNT", l)
			}
			continue
		}
		if len(fields) != 2 {
			t.Fatalf("group-by row %q is not VALUE COUNT", l)
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil {
			t.Fatalf("group-by row %q: %v", l, err)
		}
		got[fields[0]] = n
	}
	return got
}

// expectedCounts counts the uses values of objs; objects with none are not counted, as one
// --group-by index counts from the index's buckets.
func expectedCounts(w world, kind string, objs []obj) map[string]int {
	want := map[string]int{}
	for _, o := range objs {
		for _, v := range w.uses(kind, o) {
			want[v]++
		}
	}
	return want
}

// TestUsesEveryKindOfReference checks `query TYPE --group-by uses` for every referring type:
// each value and its count equal what the test computes from kubectl get -o json, and the
// fixture makes every kind of reference the README lists at least once.
func TestUsesEveryKindOfReference(t *testing.T) {
	f := setUp(t)
	w := readWorld(t, f.ns)
	sfx := f.suffix
	tests := []struct {
		typ      string
		cluster  bool
		mustHave []string
	}{
		{typ: "pods", mustHave: []string{
			"ConfigMap/cm-init", "ConfigMap/cm-envfrom", "Secret/sec-envfrom", "ConfigMap/cm-env", "Secret/sec-env",
			"ConfigMap/cm-vol", "Secret/sec-vol", "ConfigMap/cm-proj", "Secret/sec-proj", "ConfigMap/kube-root-ca.crt",
			"Secret/sec-ephemeral", "Secret/sec-pull", "Secret/sec-sa-pull", "ServiceAccount/sa-app", "ServiceAccount/default",
			"PersistentVolumeClaim/pvc-used", "PersistentVolume/refs-pv-" + sfx, "StorageClass/refs-sc-" + sfx,
			"PersistentVolumeClaim/data-db-0", "PriorityClass/refs-high-" + sfx, "RuntimeClass/refs-rc-" + sfx,
			"Secret/sec-job", "ConfigMap/cm-shared",
		}},
		{typ: "deployments.apps", mustHave: []string{"ConfigMap/cm-shared", "ServiceAccount/default"}},
		{typ: "replicasets.apps", mustHave: []string{"ConfigMap/cm-shared"}},
		{typ: "statefulsets.apps", mustHave: []string{"StorageClass/refs-sc-" + sfx, "ServiceAccount/sa-app", "Secret/sec-sa-pull"}},
		{typ: "daemonsets.apps", mustHave: []string{"ConfigMap/cm-env"}},
		{typ: "jobs.batch", mustHave: []string{"Secret/sec-job"}},
		{typ: "cronjobs.batch", mustHave: []string{"ConfigMap/cm-cron"}},
		{typ: "ingresses.networking.k8s.io", mustHave: []string{"Service/svc-web", "Service/svc-default", "Secret/sec-tls"}},
		{typ: "rolebindings.rbac.authorization.k8s.io", mustHave: []string{"ServiceAccount/sa-bound", "ServiceAccount/default/default", "User/alice", "Group/devs", "Role/reader"}},
		{typ: "clusterrolebindings.rbac.authorization.k8s.io", cluster: true, mustHave: []string{"ServiceAccount/" + f.ns + "/sa-bound", "ClusterRole/view"}},
		{typ: "serviceaccounts", mustHave: []string{"Secret/sec-sa-pull"}},
		{typ: "persistentvolumeclaims", mustHave: []string{"PersistentVolume/refs-pv-" + sfx, "StorageClass/refs-sc-" + sfx}},
		{typ: "persistentvolumes", cluster: true, mustHave: []string{"StorageClass/refs-sc-" + sfx}},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			ns := f.ns
			args := []string{"query", tt.typ, "--group-by", "uses"}
			if tt.cluster {
				ns = ""
			} else {
				args = append(args, "-n", ns)
			}
			want := expectedCounts(w, kindOfType[tt.typ], getList(t, tt.typ, ns))
			for _, v := range tt.mustHave {
				if want[v] == 0 {
					t.Errorf("the fixture makes no %s reference %s; the test would prove nothing of it", tt.typ, v)
				}
			}
			got := groupCounts(t, informer(t, nil, args...).Stdout)
			if !maps.Equal(got, want) {
				t.Errorf("query %s --group-by uses =\n%v\nwant (computed from kubectl get -o json)\n%v", tt.typ, got, want)
			}
		})
	}

	// One object through --index: the pod that refers to everything.
	r := informer(t, nil, "query", "pods", "-n", f.ns, "--index", "uses=Secret/sec-sa-pull", "-o", "name")
	var want []string
	for _, p := range getList(t, "pods", f.ns) {
		if slices.Contains(w.uses("Pod", p), "Secret/sec-sa-pull") {
			want = append(want, "pod/"+str(p, "metadata", "name"))
		}
	}
	sort.Strings(want)
	if got := lines(r.Stdout); !slices.Equal(got, want) {
		t.Errorf("query pods --index uses=Secret/sec-sa-pull -o name = %q, want %q", got, want)
	}
}

// TestUnusedFindsExactlyTheUnused checks `query configmaps,secrets,serviceaccounts,pvc
// --index '!used-by'` against the objects of the namespace no user refers to, as the test
// computes them, and that those are the ones the fixture made unused.
func TestUnusedFindsExactlyTheUnused(t *testing.T) {
	f := setUp(t)
	used := usedIn(t, f.ns)
	var want []string
	for typ, kind := range map[string]string{"configmaps": "ConfigMap", "secrets": "Secret", "serviceaccounts": "ServiceAccount", "persistentvolumeclaims": "PersistentVolumeClaim"} {
		for _, o := range getList(t, typ, f.ns) {
			name := str(o, "metadata", "name")
			if !used[kind+"/"+name] {
				want = append(want, strings.ToLower(kind)+"/"+name)
			}
		}
	}
	sort.Strings(want)
	fixtureUnused := []string{"configmap/cm-unused", "persistentvolumeclaim/pvc-unused", "secret/sec-unused", "serviceaccount/sa-unused"}
	if !slices.Equal(want, fixtureUnused) {
		t.Errorf("the test's own rule finds %q unused, want the fixture's %q", want, fixtureUnused)
	}
	r := informer(t, nil, "query", "configmaps,secrets,serviceaccounts,persistentvolumeclaims", "-n", f.ns, "--index", "!used-by", "-o", "name")
	got := lines(r.Stdout)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("query … --index '!used-by' -o name = %q, want %q", got, want)
	}
	// used-by names the users: the ConfigMap shared by the Deployment, its ReplicaSet, its pods
	// and pod app.
	r = informer(t, nil, "query", "configmaps", "-n", f.ns, "--index", "used-by=Deployment/web", "-o", "name")
	if got := lines(r.Stdout); !slices.Equal(got, []string{"configmap/cm-shared"}) {
		t.Errorf("query configmaps --index used-by=Deployment/web = %q, want [configmap/cm-shared]", got)
	}
}

// TestTreeRefsOfConfigMap checks that `tree configmap/cm-shared --refs` lists, as users, the
// pods kube-lineage's rules relate to the ConfigMap (computed in the test), and names the
// relationship on each edge.
func TestTreeRefsOfConfigMap(t *testing.T) {
	f := setUp(t)
	pods := getList(t, "pods", f.ns)
	want := lineageConfigMapPods(pods, "cm-shared")
	if len(want) < 2 {
		t.Fatalf("kube-lineage's rules relate %q to cm-shared; the fixture should give pod app and the Deployment's pods", want)
	}
	sort.Strings(want)
	r := informer(t, nil, "tree", "configmap/cm-shared", "-n", f.ns, "--refs", "-o", "name")
	var got []string
	for _, l := range lines(r.Stdout) {
		if name, ok := strings.CutPrefix(l, "pod/"); ok {
			got = append(got, name)
		}
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("tree configmap/cm-shared --refs lists pods %q, want kube-lineage's %q", got, want)
	}
	table := informer(t, nil, "tree", "configmap/cm-shared", "-n", f.ns, "--refs").Stdout
	for _, want := range []string{"RELATION", "Pod/app", "used by (volume)", "Deployment/web", "used by (envFrom)"} {
		if !strings.Contains(table, want) {
			t.Errorf("tree --refs table lacks %q:\n%s", want, table)
		}
	}
	// Both directions: the pod's claim, and the volume and class behind it, nested.
	podTree := informer(t, nil, "tree", "pod/app", "-n", f.ns, "--refs", "-o", "name").Stdout
	for _, want := range []string{"persistentvolumeclaim/pvc-used", "persistentvolume/refs-pv-" + f.suffix, "storageclass.storage.k8s.io/refs-sc-" + f.suffix, "serviceaccount/sa-app", "secret/sec-sa-pull"} {
		if !strings.Contains(podTree, want+"\n") {
			t.Errorf("tree pod/app --refs -o name lacks %s:\n%s", want, podTree)
		}
	}
}

// TestWatchWhereUsesFollowsTheServiceAccount runs `watch pods --where uses=Secret/late-pull`
// and gives the pods' ServiceAccount that pull secret with kubectl patch: the pods enter the
// query although they did not change, with the ServiceAccount as the cause.
func TestWatchWhereUsesFollowsTheServiceAccount(t *testing.T) {
	ns := fmt.Sprintf("refswatch-%d", time.Now().UnixNano()%1_000_000)
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	kubectl(t, "create", "serviceaccount", "builder", "-n", ns)
	kubectl(t, "create", "secret", "generic", "late-pull", "-n", ns)
	for _, name := range []string{"p1", "p2"} {
		kubectl(t, "run", name, "-n", ns, "--image=busybox", "--overrides", `{"spec":{"serviceAccountName":"builder"}}`)
	}
	kubectl(t, "run", "other", "-n", ns, "--image=busybox")

	p := framework.StartWatch(t, "pods", "-n", ns, "--where", "uses=Secret/late-pull", "-o", "json")
	kubectl(t, "patch", "serviceaccount", "builder", "-n", ns, "-p", `{"imagePullSecrets":[{"name":"late-pull"}]}`)
	var got []string
	for range 2 {
		ev := framework.NextEvent(t, p, time.Minute)
		if ev.Type != "ADDED" || ev.Note != "entered query: serviceaccount/builder changed" {
			t.Errorf("event %s, want ADDED with the note \"entered query: serviceaccount/builder changed\"", ev)
		}
		got = append(got, ev.Name())
	}
	sort.Strings(got)
	if !slices.Equal(got, []string{"p1", "p2"}) {
		t.Errorf("pods that entered = %q, want [p1 p2]", got)
	}
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if r := p.Wait(); r.ExitCode != 0 {
		t.Errorf("watch did not exit 0 on SIGINT: %s", r)
	}
	if n := len(lines(p.Stdout())); n != 2 {
		t.Errorf("watch printed %d events, want 2:\n%s", n, p.Stdout())
	}
}

// TestWarmCacheAnswersReferences starts a warm cache and checks that uses and !used-by answer
// through it as they do without it.
func TestWarmCacheAnswersReferences(t *testing.T) {
	f := setUp(t)
	runtime, err := os.MkdirTemp("", "refs-xdg-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_RUNTIME_DIR=" + runtime, "KUBECACHEDIR=" + filepath.Join(runtime, "kubecache")}
	t.Cleanup(func() {
		framework.Run(t, framework.Cmd{Args: []string{"informer", "cache", "stop", "--all"}, Env: env})
		os.RemoveAll(runtime)
	})
	informer(t, env, "cache", "start")
	for _, args := range [][]string{
		{"query", "configmaps,secrets,serviceaccounts,persistentvolumeclaims", "-n", f.ns, "--index", "!used-by", "-o", "name"},
		{"query", "pods", "-n", f.ns, "--group-by", "uses"},
		{"query", "secrets", "-n", f.ns, "--group-by", "used-by"},
	} {
		warm := informer(t, env, args...)
		direct := informer(t, env, append(args, "--cache", "off")...)
		if warm.Stdout != direct.Stdout || warm.Stdout == "" {
			t.Errorf("%s: the warm cache's answer differs from the direct one:\n--- warm:\n%s--- direct:\n%s", strings.Join(args, " "), warm.Stdout, direct.Stdout)
		}
	}
	status := informer(t, env, "cache", "status").Stdout
	for _, typ := range []string{"serviceaccounts", "rolebindings.rbac.authorization.k8s.io"} {
		if !strings.Contains(status, typ) {
			t.Errorf("cache status does not show the related type %s the warm answers leased:\n%s", typ, status)
		}
	}
}
