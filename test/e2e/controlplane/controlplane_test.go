// Package controlplane checks the test control plane itself (hack/cluster,
// hack/seed and the e2e framework) against a real kube-apiserver: watches,
// RBAC, the audit log, the real kubectl, a second apiserver and restarts.
package controlplane

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) {
	framework.Main(m)
}

func testPod(namespace, name string) *corev1.Pod {
	noToken := false
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: &noToken,
			NodeName:                     "node-1",
			Containers:                   []corev1.Container{{Name: "main", Image: "registry.example.com/web:v1"}},
		},
	}
}

// nextEvent returns the next event from w, failing the test after timeout.
func nextEvent(t *testing.T, w watch.Interface, timeout time.Duration) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed early")
		}
		return ev
	case <-time.After(timeout):
		t.Fatalf("no watch event within %s", timeout)
		return watch.Event{}
	}
}

func TestListAndWatchPods(t *testing.T) {
	framework.SkipIfShort(t)
	c := framework.Current(t)
	cs := c.AdminClient()
	ctx := t.Context()
	const ns = "cp-watch"
	framework.CreateNamespace(t, cs, ns)

	list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing pods: %v", err)
	}
	if len(list.Items) != 0 {
		t.Fatalf("pods in %s = %d, want 0", ns, len(list.Items))
	}
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatalf("watching pods: %v", err)
	}
	defer w.Stop()

	if _, err := cs.CoreV1().Pods(ns).Create(ctx, testPod(ns, "web-1"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a pod: %v", err)
	}
	if ev := nextEvent(t, w, 10*time.Second); ev.Type != watch.Added || ev.Object.(*corev1.Pod).Name != "web-1" {
		t.Fatalf("first event = %s %T, want ADDED web-1", ev.Type, ev.Object)
	}

	patch := []byte(`{"metadata":{"labels":{"tier":"frontend"}}}`)
	if _, err := cs.CoreV1().Pods(ns).Patch(ctx, "web-1", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("patching the pod: %v", err)
	}
	ev := nextEvent(t, w, 10*time.Second)
	if ev.Type != watch.Modified {
		t.Fatalf("second event = %s, want MODIFIED", ev.Type)
	}
	if got := ev.Object.(*corev1.Pod).Labels["tier"]; got != "frontend" {
		t.Fatalf("label tier after patch = %q, want %q", got, "frontend")
	}

	// With spec.nodeName set and no kubelet, only an immediate delete ends.
	// The apiserver first sets deletionTimestamp (MODIFIED), then removes
	// the pod (DELETED).
	zero := int64(0)
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "web-1", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("deleting the pod: %v", err)
	}
	ev = nextEvent(t, w, 10*time.Second)
	if ev.Type == watch.Modified && ev.Object.(*corev1.Pod).DeletionTimestamp != nil {
		ev = nextEvent(t, w, 10*time.Second)
	}
	if ev.Type != watch.Deleted {
		t.Fatalf("event after delete = %s, want DELETED", ev.Type)
	}
}

func TestViewerRBAC(t *testing.T) {
	framework.SkipIfShort(t)
	c := framework.Current(t)
	viewer, err := kubernetes.NewForConfig(c.ViewerConfig())
	if err != nil {
		t.Fatalf("creating the viewer client: %v", err)
	}
	ctx := t.Context()

	_, err = viewer.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("viewer list pods at cluster scope: err = %v, want Forbidden", err)
	}
	_, err = viewer.CoreV1().Pods(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("viewer list pods in default: err = %v, want Forbidden", err)
	}
	_, err = viewer.CoreV1().ConfigMaps("team-a").List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("viewer list configmaps in team-a: err = %v, want Forbidden", err)
	}
	if _, err := viewer.CoreV1().Pods("team-a").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("viewer list pods in team-a: %v", err)
	}
	w, err := viewer.CoreV1().Pods("team-a").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Errorf("viewer watch pods in team-a: %v", err)
	} else {
		w.Stop()
	}
	_, err = viewer.CoreV1().Pods("team-a").Create(ctx, testPod("team-a", "nope"), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("viewer create pod in team-a: err = %v, want Forbidden", err)
	}
}

func TestAuditLog(t *testing.T) {
	framework.SkipIfShort(t)
	c := framework.Current(t)
	userAgent := fmt.Sprintf("controlplane-audit-test/%d", time.Now().UnixNano())
	cfg := c.ViewerConfig()
	cfg.UserAgent = userAgent
	viewer, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("creating the viewer client: %v", err)
	}
	if _, err := viewer.CoreV1().Pods("team-a").List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatalf("viewer list pods in team-a: %v", err)
	}
	if _, err := viewer.CoreV1().Pods(metav1.NamespaceAll).List(t.Context(), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("viewer list pods at cluster scope: err = %v, want Forbidden", err)
	}

	events, err := c.AuditLog()
	if err != nil {
		t.Fatalf("reading the audit log: %v", err)
	}
	if len(events) == 0 {
		t.Fatal("audit log is empty")
	}
	codes := map[string]int{} // namespace -> response code of the completed list
	for _, e := range events {
		if e.UserAgent != userAgent || e.Stage != "ResponseComplete" {
			continue
		}
		if e.Verb != "list" || e.ObjectRef.Resource != "pods" || e.User.Username != "viewer" {
			t.Errorf("audit event %s %s by %s for %q, want list pods by viewer", e.Verb, e.RequestURI, e.User.Username, e.ObjectRef.Resource)
		}
		codes[e.ObjectRef.Namespace] = e.ResponseStatus.Code
	}
	want := map[string]int{"team-a": 200, "": 403}
	for ns, code := range want {
		if codes[ns] != code {
			t.Errorf("audit log: viewer list pods in namespace %q answered %d, want %d (all: %v)", ns, codes[ns], code, codes)
		}
	}
}

func TestKubectlGetNamespaces(t *testing.T) {
	framework.SkipIfShort(t)
	c := framework.Current(t)
	res := framework.Kubectl(t, t.Context(), "get", "ns", "-o", "name")
	if res.ExitCode != 0 {
		t.Fatalf("kubectl get ns: %s", res)
	}
	for _, want := range []string{"namespace/default", "namespace/kube-system", "namespace/team-a"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("kubectl get ns: stdout lacks %s:\n%s", want, res.Stdout)
		}
	}

	res = framework.Run(t, framework.Cmd{Kubeconfig: c.ViewerKubeconfig(), Args: []string{"get", "pods", "-A"}})
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "forbidden") {
		t.Errorf("kubectl get pods -A as viewer: %s\nwant a non-zero exit and forbidden", res)
	}
	res = framework.Run(t, framework.Cmd{Kubeconfig: c.ViewerKubeconfig(), Args: []string{"get", "pods", "-n", "team-a"}})
	if res.ExitCode != 0 {
		t.Errorf("kubectl get pods -n team-a as viewer: %s", res)
	}
}

func TestKubectlFindsPlugin(t *testing.T) {
	framework.SkipIfShort(t)
	framework.Current(t)
	res := framework.Kubectl(t, t.Context(), "plugin", "list", "--name-only")
	if !strings.Contains(res.Stdout, "kubectl-informer") {
		t.Fatalf("kubectl plugin list does not show the built plugin %s: %s", framework.PluginBinary(), res)
	}
}

func TestKubectlWatch(t *testing.T) {
	framework.SkipIfShort(t)
	c := framework.Current(t)
	const ns = "cp-kubectl-watch"
	framework.CreateNamespace(t, c.AdminClient(), ns)

	p := framework.Start(t, framework.Cmd{Args: []string{"get", "pods", "-n", ns, "--watch", "-o", "name"}, Timeout: time.Minute})
	// Give the watch time to start; a pod created before it would be listed
	// anyway, so this only makes the test exercise the watch path.
	time.Sleep(time.Second)
	if _, err := c.AdminClient().CoreV1().Pods(ns).Create(t.Context(), testPod(ns, "watched"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a pod: %v", err)
	}
	if _, err := p.WaitForLine(20*time.Second, func(l string) bool { return l == "pod/watched" }); err != nil {
		t.Fatal(err)
	}
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	res := p.Wait()
	if res.TimedOut {
		t.Fatalf("kubectl get --watch did not stop on SIGINT: %s", res)
	}
}

func TestSeed(t *testing.T) {
	framework.SkipIfShort(t)
	c := framework.Current(t)
	out, err := c.Seed("pods", "--count", "60", "--namespaces", "3", "--nodes", "4", "--namespace-prefix", "cp-seed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Log(strings.TrimSpace(out))
	pods, err := c.AdminClient().CoreV1().Pods(metav1.NamespaceAll).List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=kubectl-informer-seed"})
	if err != nil {
		t.Fatalf("listing seeded pods: %v", err)
	}
	perNode := map[string]int{}
	for _, p := range pods.Items {
		if strings.HasPrefix(p.Namespace, "cp-seed-") {
			perNode[p.Spec.NodeName]++
		}
	}
	if len(perNode) != 4 || perNode["node-0"] != 15 {
		t.Errorf("seeded pods per node = %v, want 15 on each of node-0..node-3", perNode)
	}

	if out, err := c.Seed("widgets", "--count", "10", "--namespace-prefix", "cp-seed-"); err != nil {
		t.Fatal(err)
	} else {
		t.Log(strings.TrimSpace(out))
	}
	res := framework.Kubectl(t, t.Context(), "get", "wg", "-n", "cp-seed-0", "-o", "name")
	if res.ExitCode != 0 || strings.Count(res.Stdout, "widget.example.com/") != 10 {
		t.Errorf("kubectl get wg: %s\nwant 10 widgets", res)
	}

	if out, err := c.Seed("churn", "--rate", "50", "--duration", "2s", "--namespace", "cp-seed-1"); err != nil {
		t.Fatal(err)
	} else {
		t.Log(strings.TrimSpace(out))
	}
}

// TestSecondAPIServer stops the primary apiserver, so it must not run in
// parallel with other tests.
func TestSecondAPIServer(t *testing.T) {
	framework.SkipIfShort(t)
	c := framework.Current(t)
	const ns = "cp-second"
	framework.CreateNamespace(t, c.AdminClient(), ns)
	if _, err := c.AdminClient().CoreV1().Pods(ns).Create(t.Context(), testPod(ns, "web"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a pod: %v", err)
	}

	second, err := c.StartSecondAPIServer("second")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := second.Stop(); err != nil {
			t.Error(err)
		}
	})
	secondClient, err := kubernetes.NewForConfig(second.Config())
	if err != nil {
		t.Fatalf("creating a client for the second apiserver: %v", err)
	}

	if err := c.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			if err := c.StartAPIServer(); err != nil {
				t.Error(err)
			}
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := c.AdminClient().CoreV1().Pods(ns).Get(ctx, "web", metav1.GetOptions{}); err == nil {
		t.Fatal("the primary apiserver still answers after StopAPIServer")
	}

	patch := []byte(`{"metadata":{"labels":{"changed-through":"second"}}}`)
	if _, err := secondClient.CoreV1().Pods(ns).Patch(t.Context(), "web", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("patching through the second apiserver: %v", err)
	}

	if err := c.StartAPIServer(); err != nil {
		t.Fatal(err)
	}
	restarted = true
	pod, err := c.AdminClient().CoreV1().Pods(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the pod from the restarted primary: %v", err)
	}
	if got := pod.Labels["changed-through"]; got != "second" {
		t.Errorf("label changed-through = %q, want %q", got, "second")
	}
	events, err := second.AuditLog()
	if err != nil {
		t.Fatalf("reading the second apiserver's audit log: %v", err)
	}
	if len(events) == 0 {
		t.Error("the second apiserver's audit log is empty")
	}
}
