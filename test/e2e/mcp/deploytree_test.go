package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// treeNamespace holds Deployment web, its ReplicaSets and their pods.
const treeNamespace = "m-tree"

var deploymentOnce sync.Once

// deploymentTree creates Deployment web with two ReplicaSets, the newer
// owning two pods, one of which reads ConfigMap web-config. This cluster
// runs no controllers: the objects carry the ownerReferences the
// Deployment and ReplicaSet controllers would set.
func deploymentTree(t *testing.T) *framework.Cluster {
	t.Helper()
	c := seed(t)
	deploymentOnce.Do(func() {
		cs := c.AdminClient()
		framework.CreateNamespace(t, cs, treeNamespace)
		labels := map[string]string{"app": "web"}
		pod := corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.example.com/web:v1"}}}
		two := int32(2)
		d, err := cs.AppsV1().Deployments(treeNamespace).Create(t.Context(), &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating deployment web: %v", err)
		}
		controller := true
		var newest *appsv1.ReplicaSet
		for _, name := range []string{"web-old", "web-5d9c7"} {
			rs, err := cs.AppsV1().ReplicaSets(treeNamespace).Create(t.Context(), &appsv1.ReplicaSet{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: &controller}}},
				Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("creating replicaset %s: %v", name, err)
			}
			newest = rs
		}
		if _, err := cs.CoreV1().ConfigMaps(treeNamespace).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		for i, name := range []string{"web-5d9c7-a", "web-5d9c7-b"} {
			spec := *pod.DeepCopy()
			if i == 0 {
				spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}}
			}
			if _, err := cs.CoreV1().Pods(treeNamespace).Create(t.Context(), &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: newest.Name, UID: newest.UID, Controller: &controller}}},
				Spec: spec,
			}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("creating pod %s: %v", name, err)
			}
		}
	})
	return c
}

// treeObject is the part of an object the expected trees are computed
// from.
type treeObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name            string `json:"name"`
		UID             string `json:"uid"`
		OwnerReferences []struct {
			UID string `json:"uid"`
		} `json:"ownerReferences"`
	} `json:"metadata"`
}

// ownerTree reads the tree namespace's Deployments, ReplicaSets and pods
// with kubectl get -o json and returns each object's KIND/NAME and that
// of its owner ("" for none).
func ownerTree(t *testing.T) map[string]string {
	t.Helper()
	r := framework.Kubectl(t, t.Context(), "get", "deployments,replicasets,pods", "-n", treeNamespace, "-o", "json")
	if r.ExitCode != 0 {
		t.Fatalf("kubectl get: %s", r)
	}
	var list struct {
		Items []treeObject `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatal(err)
	}
	byUID := map[string]string{}
	for _, o := range list.Items {
		byUID[o.Metadata.UID] = o.Kind + "/" + o.Metadata.Name
	}
	owners := map[string]string{}
	for _, o := range list.Items {
		owner := ""
		for _, ref := range o.Metadata.OwnerReferences {
			owner = byUID[ref.UID]
		}
		owners[o.Kind+"/"+o.Metadata.Name] = owner
	}
	return owners
}

// treeOutput is the tree tool's structured content.
type treeOutput struct {
	Contexts []struct {
		Error          string `json:"error"`
		NamespaceScope string `json:"namespaceScope"`
		Lines          []struct {
			Depth     int    `json:"depth"`
			Prefix    string `json:"prefix"`
			Kind      string `json:"kind"`
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
			Relation  string `json:"relation"`
			Status    string `json:"status"`
			Age       string `json:"age"`
		} `json:"lines"`
		TotalLines int `json:"totalLines"`
	} `json:"contexts"`
}

// callTree calls the tree tool and returns its one context's answer.
func callTree(t *testing.T, c *framework.Cluster, args map[string]any) (treeOutput, string) {
	t.Helper()
	res, structured := call(t, mcpServer(t, c.AdminKubeconfig()), "tree", args)
	if res.IsError {
		t.Fatalf("tree %v is an error: %s", args, textOf(res))
	}
	var out treeOutput
	if err := json.Unmarshal([]byte(structured), &out); err != nil || len(out.Contexts) != 1 {
		t.Fatalf("tree %v = %s (%v), want one context", args, structured, err)
	}
	return out, textOf(res)
}

// parents returns each line's KIND/NAME and that of the line it hangs
// from, read from the depths of the lines in depth-first order.
func parents(t *testing.T, out treeOutput) map[string]string {
	t.Helper()
	got := map[string]string{}
	var path []string
	for _, l := range out.Contexts[0].Lines {
		if l.Depth > len(path) {
			t.Fatalf("line %s/%s at depth %d follows depth %d", l.Kind, l.Name, l.Depth, len(path)-1)
		}
		path = append(path[:l.Depth], l.Kind+"/"+l.Name)
		parent := ""
		if l.Depth > 0 {
			parent = path[l.Depth-1]
		}
		got[l.Kind+"/"+l.Name] = parent
	}
	return got
}

func TestTreeDown(t *testing.T) {
	c := deploymentTree(t)
	want := ownerTree(t)
	out, text := callTree(t, c, map[string]any{"roots": []string{"deployment/web"}, "namespace": treeNamespace})
	if got := parents(t, out); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tree deployment/web = %v (object: parent), want %v (kubectl get -o json)", got, want)
	}
	if a := out.Contexts[0]; a.TotalLines != len(want) || !strings.Contains(a.NamespaceScope, treeNamespace) {
		t.Errorf("totalLines %d, namespaceScope %q; want %d lines in %s", a.TotalLines, a.NamespaceScope, len(want), treeNamespace)
	}
	for _, w := range []string{"Deployment/web", "└─", "Pod/web-5d9c7-a", "STATUS"} {
		if !strings.Contains(text, w) {
			t.Errorf("text form = %q, want it to hold %q", text, w)
		}
	}
}

func TestTreeUp(t *testing.T) {
	c := deploymentTree(t)
	owners := ownerTree(t)
	var want []string
	for o := "Pod/web-5d9c7-b"; o != ""; o = owners[o] {
		want = append([]string{o}, want...)
	}
	out, _ := callTree(t, c, map[string]any{"roots": []string{"pod/web-5d9c7-b"}, "namespace": treeNamespace, "direction": "up"})
	var got []string
	for i, l := range out.Contexts[0].Lines {
		got = append(got, l.Kind+"/"+l.Name)
		if l.Depth != i {
			t.Errorf("line %s/%s at depth %d, want %d", l.Kind, l.Name, l.Depth, i)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("tree pod/web-5d9c7-b up = %v, want %v (kubectl get -o json)", got, want)
	}
}

func TestTreeRefs(t *testing.T) {
	c := deploymentTree(t)
	out, _ := callTree(t, c, map[string]any{"roots": []string{"configmap/web-config"}, "namespace": treeNamespace, "direction": "refs"})
	var users []string
	for _, l := range out.Contexts[0].Lines {
		if l.Depth == 1 && strings.HasPrefix(l.Relation, "used by") {
			users = append(users, l.Kind+"/"+l.Name)
		}
	}
	if want := []string{"Pod/web-5d9c7-a"}; !slices.Equal(users, want) {
		t.Errorf("configmap/web-config is used by %v, want %v", users, want)
	}
}

func TestTreeErrors(t *testing.T) {
	c := deploymentTree(t)
	cs := mcpServer(t, c.AdminKubeconfig())
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"roots": []string{"deployment/nosuch"}, "namespace": treeNamespace}, "not found"},
		{map[string]any{"roots": []string{"nosuchthings/x"}, "namespace": treeNamespace}, "nosuchthings"},
		{map[string]any{"roots": []string{"deployment/web"}, "direction": "sideways"}, "direction"},
	} {
		res, structured := call(t, cs, "tree", tt.args)
		if !res.IsError || !strings.Contains(textOf(res), tt.want) {
			t.Errorf("tree %v = %s %s, want a tool error naming %q", tt.args, structured, textOf(res), tt.want)
		}
	}
}

// pluginReads returns the IDs of the list and watch requests the plugin
// has sent to c's API server so far.
func pluginReads(t *testing.T, c *framework.Cluster) map[string]string {
	t.Helper()
	events, err := c.AuditLog()
	if err != nil {
		t.Fatal(err)
	}
	reads := map[string]string{}
	for _, e := range events {
		if strings.HasPrefix(e.UserAgent, "kubectl-informer/") && (e.Verb == "list" || e.Verb == "watch") {
			reads[e.AuditID] = e.Verb + " " + e.RequestURI
		}
	}
	return reads
}

// TestTreeAnswersFromWarmInformers asks the same server for trees down, up
// and across after a first tree: the informers the first call started
// answer them, so no later call lists or watches anything new.
func TestTreeAnswersFromWarmInformers(t *testing.T) {
	c := deploymentTree(t)
	want := ownerTree(t)
	cs := mcpServer(t, c.AdminKubeconfig())
	ask := func(args map[string]any) treeOutput {
		t.Helper()
		res, structured := call(t, cs, "tree", args)
		var out treeOutput
		if err := json.Unmarshal([]byte(structured), &out); res.IsError || err != nil || len(out.Contexts) != 1 {
			t.Fatalf("tree %v = %s %s (%v), want one context's answer", args, structured, textOf(res), err)
		}
		return out
	}
	down := map[string]any{"roots": []string{"deployment/web"}, "namespace": treeNamespace}
	ask(down)
	ask(map[string]any{"roots": []string{"pod/web-5d9c7-a"}, "namespace": treeNamespace, "direction": "up"})
	ask(map[string]any{"roots": []string{"configmap/web-config"}, "namespace": treeNamespace, "direction": "refs"})
	before := pluginReads(t, c)
	if got := parents(t, ask(down)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("second tree deployment/web = %v, want %v (kubectl get -o json)", got, want)
	}
	ask(map[string]any{"roots": []string{"pod/web-5d9c7-b"}, "namespace": treeNamespace, "direction": "up"})
	ask(map[string]any{"roots": []string{"configmap/web-config"}, "namespace": treeNamespace, "direction": "refs"})
	for id, req := range pluginReads(t, c) {
		if _, ok := before[id]; !ok {
			t.Errorf("a tree after the first ones sent %s; the warm informers should have answered it", req)
		}
	}
}
