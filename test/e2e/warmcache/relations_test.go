package warmcache

import (
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// ownedPods creates namespace ns with Deployment web, its ReplicaSet
// web-1 and its pods web-1-0…, a pod of no controller (lone), and Service
// web selecting app=web. No controller runs in this package: the owner
// references are written by hand, with the owners' UIDs.
func ownedPods(t *testing.T, ns string, n int) {
	t.Helper()
	cs := framework.Current(t).AdminClient()
	framework.CreateNamespace(t, cs, ns)
	labels := map[string]string{"app": "web"}
	podSpec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}
	replicas := int32(n)
	controller := func(kind, name string, uid string) []metav1.OwnerReference {
		isController := true
		return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID(uid), Controller: &isController}}
	}
	deploy, err := cs.AppsV1().Deployments(ns).Create(t.Context(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating deployment %s/web: %v", ns, err)
	}
	rs, err := cs.AppsV1().ReplicaSets(ns).Create(t.Context(), &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: ns, Labels: labels, OwnerReferences: controller("Deployment", "web", string(deploy.UID))},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating replica set %s/web-1: %v", ns, err)
	}
	for i := range n {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "web-1-" + strconv.Itoa(i), Namespace: ns, Labels: labels, OwnerReferences: controller("ReplicaSet", "web-1", string(rs.UID))},
			Spec:       podSpec,
		}
		if _, err := cs.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod %s/%s: %v", ns, pod.Name, err)
		}
	}
	lone := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "lone", Namespace: ns, Labels: map[string]string{"app": "lone"}}, Spec: podSpec}
	if _, err := cs.CoreV1().Pods(ns).Create(t.Context(), lone, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s/lone: %v", ns, err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}},
	}
	if _, err := cs.CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating service %s/web: %v", ns, err)
	}
}

// TestRelationQueriesAnsweredWarm runs queries with relation indexes
// (owner-root, selected-by) through the cache and with --cache off and
// wants the same stdout (AGE aside), stderr and exit code, byte for byte. The cache
// answers them itself: afterwards it holds the owner types and the
// services the relations read, without users, warm for the next command.
func TestRelationQueriesAnsweredWarm(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-relations")
	ownedPods(t, ns, 3)
	e.start("")
	queries := [][]string{
		{"query", "pods", "-n", ns, "--index", "owner-root=Deployment/web", "-o", "name"},
		{"query", "pods", "-n", ns, "--index", "owner-root=Deployment/web"},
		{"query", "pods", "-n", ns, "--group-by", "owner-root"},
		{"query", "pods", "-n", ns, "--index", "owner-root!=Deployment/web", "-o", "name"},
		{"query", "pods", "-n", ns, "--index", "selected-by=Service/web", "-o", "name"},
		{"query", "pods", "-n", ns, "--group-by", "selected-by"},
	}
	for _, q := range queries {
		name := strings.Join(q, " ")
		warm := e.run("", q...)
		direct := e.run("", append(q, "--cache", "off")...)
		if warm.ExitCode != 0 {
			t.Errorf("%s through the cache: %s", name, warm)
		}
		// The pods' AGE moves on between the two runs.
		warm.Stdout, direct.Stdout = withoutAge(warm.Stdout), withoutAge(direct.Stdout)
		if warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr || warm.ExitCode != direct.ExitCode {
			t.Errorf("%s\nthrough the cache: %s\ndirect: %s", name, warm, direct)
		}
	}
	if got := e.mustRun("", queries[0]...).Stdout; got != "pod/web-1-0\npod/web-1-1\npod/web-1-2\n" {
		t.Errorf("%s = %q, want the three pods of web-1", strings.Join(queries[0], " "), got)
	}
	held := map[string]int{}
	for _, tc := range e.onlyCache().Status.Caches {
		held[tc.Type+" "+strings.Join(tc.Namespaces, ",")] = tc.Users
	}
	// Only the cache itself could have leased the owner types and the
	// services: a declined command caches nothing there.
	for _, want := range []string{"pods " + ns, "replicasets.apps " + ns, "deployments.apps " + ns, "services " + ns} {
		users, ok := held[want]
		if !ok {
			t.Errorf("the cache holds %v, want %q among them", held, want)
		} else if users != 0 {
			t.Errorf("%q has %d users after the queries ended, want 0", want, users)
		}
	}
}

// TestRelationWatchAnsweredWarm runs `watch pods --where owner-root=…`
// through the cache, next to the same watch with --cache off: a pod the
// ReplicaSet gains enters, a pod of no controller does not, and orphaning
// the ReplicaSet (a change of an owner only, which the relations follow on
// the cache's shared informers) makes its pods leave. Both print the same
// lines; the cache holds the owner types while the watch runs.
func TestRelationWatchAnsweredWarm(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-relwatch")
	ownedPods(t, ns, 2)
	e.start("")
	args := []string{"pods", "-n", ns, "--where", "owner-root=Deployment/web", "--initial"}
	warm := e.startWatch(args...)
	direct := e.startWatch(append(args, "--cache", "off")...)
	held := map[string]int{}
	for _, tc := range e.onlyCache().Status.Caches {
		held[tc.Type+" "+strings.Join(tc.Namespaces, ",")] = tc.Users
	}
	for _, want := range []string{"replicasets.apps " + ns, "deployments.apps " + ns} {
		if held[want] != 1 {
			t.Errorf("while the watch runs the cache holds %v, want %q with 1 user", held, want)
		}
	}

	cs := framework.Current(t).AdminClient()
	rs, err := cs.AppsV1().ReplicaSets(ns).Get(t.Context(), "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	isController := true
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "web-1-new", Namespace: ns, Labels: rs.Spec.Selector.MatchLabels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: rs.UID, Controller: &isController}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "lone-new", Namespace: ns}},
	} {
		p.Spec = corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}
		if _, err := cs.CoreV1().Pods(ns).Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := warm.WaitForLine(30*time.Second, func(l string) bool { return strings.HasPrefix(l, "ADDED    pod/web-1-new ") }); err != nil {
		t.Fatalf("the watch through the cache: no ADDED event of web-1-new: %v\nstdout:\n%s\nstderr:\n%s", err, warm.Stdout(), warm.Stderr())
	}
	// Orphan the ReplicaSet, as kubectl delete deployment --cascade=orphan
	// does: its pods' owner-root becomes ReplicaSet/web-1.
	if _, err := cs.AppsV1().ReplicaSets(ns).Patch(t.Context(), "web-1", types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/ownerReferences"}]`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ADDED    pod/web-1-0 -n " + ns,
		"ADDED    pod/web-1-1 -n " + ns,
		"ADDED    pod/web-1-new -n " + ns,
		"DELETED  pod/web-1-0 -n " + ns,
		"DELETED  pod/web-1-1 -n " + ns,
		"DELETED  pod/web-1-new -n " + ns,
	}
	events := func(p *framework.Process, name string) []string {
		t.Helper()
		var got []string
		waitFor(t, 30*time.Second, name+" to print the pods leaving", func() bool {
			got = nil
			for _, l := range strings.Split(strings.TrimRight(p.Stdout(), "\n"), "\n") {
				if l != "" && !strings.HasPrefix(l, " ") {
					got = append(got, l)
				}
			}
			return strings.Count(p.Stdout(), "DELETED ") >= 3
		})
		return got
	}
	warmEvents := events(warm, "the watch through the cache")
	directEvents := events(direct, "the direct watch")
	matches := len(warmEvents) == len(want)
	for i := 0; matches && i < len(want); i++ {
		matches = strings.HasPrefix(warmEvents[i], want[i])
	}
	if !matches {
		t.Errorf("the watch through the cache printed events:\n%s\nwant:\n%s", strings.Join(warmEvents, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(warmEvents, "\n") != strings.Join(directEvents, "\n") || warm.Stdout() != direct.Stdout() {
		t.Errorf("the watch through the cache printed\n%s\nthe direct watch\n%s", warm.Stdout(), direct.Stdout())
	}
	for _, p := range []*framework.Process{warm, direct} {
		if err := p.Interrupt(); err != nil {
			t.Fatal(err)
		}
		if res := p.Wait(); res.ExitCode != 0 {
			t.Errorf("interrupted watch: %s", res)
		}
	}
}

// TestRelationWarningsAsDirect groups config maps by owner-root where the
// owner is a Relic referred to in its deprecated version: the owner type's
// list gets the API server's warning, which the command prints on stderr,
// through the cache as directly, when the cache starts the owner type and
// when it holds it already.
func TestRelationWarningsAsDirect(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-relwarn")
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	kubectlApply(t, relicsCRD)
	if r := framework.Run(t, framework.Cmd{Args: []string{"wait", "crd/relics.fidelity.example.com", "--for=condition=Established", "--timeout=1m"}}); r.ExitCode != 0 {
		t.Fatalf("waiting for the CRD: %s", r)
	}
	kubectlApply(t, strings.ReplaceAll(relics, "NAMESPACE", ns))
	uid := framework.Run(t, framework.Cmd{Args: []string{"get", "relics.v2.fidelity.example.com", "amphora", "-n", ns, "-o", "jsonpath={.metadata.uid}"}})
	if uid.ExitCode != 0 || uid.Stdout == "" {
		t.Fatalf("getting the relic's uid: %s", uid)
	}
	kubectlApply(t, `
apiVersion: v1
kind: ConfigMap
metadata:
  name: shard
  namespace: `+ns+`
  ownerReferences: [{apiVersion: fidelity.example.com/v1, kind: Relic, name: amphora, uid: `+uid.Stdout+`, controller: true}]
`)
	e.start("")
	const warning = "Warning: fidelity.example.com/v1 Relic is deprecated; use fidelity.example.com/v2 Relic\n"
	q := []string{"query", "configmaps", "-n", ns, "--group-by", "owner-root"}
	for i := range 2 { // the cache starts the relics, then holds them
		direct := e.run("", append(q, "--cache", "off")...)
		warm := e.run("", q...)
		if direct.ExitCode != 0 || direct.Stderr != warning || !strings.Contains(direct.Stdout, "Relic/amphora") {
			t.Fatalf("%s --cache off: %s\nwant the relic's group and stderr %q", strings.Join(q, " "), direct, warning)
		}
		if warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr || warm.ExitCode != direct.ExitCode {
			t.Errorf("query %d: %s\nthrough the cache: %s\ndirect: %s", i, strings.Join(q, " "), warm, direct)
		}
	}
	var held bool
	for _, tc := range e.onlyCache().Status.Caches {
		held = held || strings.HasPrefix(tc.Type, "relics")
	}
	if !held {
		t.Errorf("the cache does not hold the relics: the queries did not go through it")
	}
}
