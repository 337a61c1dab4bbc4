package warmcache

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// usingPod is pod name of namespace ns labelled app, reading config map cm
// through a volume.
func usingPod(ns, name, app, cm string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
			Volumes: []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}}},
		},
	}
}

// TestKeptRelationsFollowKubectlChanges runs one-shot queries with uses,
// used-by and selected-by through the cache, whose relation indexes the
// cache keeps after the first, and with --cache off, before and after
// changes made with kubectl to both sides of each relation (a pod created,
// relabelled and deleted, a config map deleted and created again, the
// Service's selector changed): every warm answer equals the direct one
// once the cache has seen the changes.
func TestKeptRelationsFollowKubectlChanges(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("kept-relations")
	configMaps(t, ns, 2) // cm-0, cm-1
	cs := framework.Current(t).AdminClient()
	for _, p := range []*corev1.Pod{usingPod(ns, "p1", "web", "cm-0"), usingPod(ns, "p2", "web", "cm-1"), usingPod(ns, "p3", "db", "cm-0")} {
		if _, err := cs.CoreV1().Pods(ns).Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod %s/%s: %v", ns, p.Name, err)
		}
	}
	kubectl := func(args ...string) {
		t.Helper()
		res := framework.Run(t, framework.Cmd{Args: args, Timeout: 60 * time.Second})
		if res.ExitCode != 0 {
			t.Fatalf("kubectl %s: %s", strings.Join(args, " "), res)
		}
	}
	kubectl("-n", ns, "create", "service", "clusterip", "web", "--tcp=80:8080")
	// kubectl create service selects app=web.
	e.start("")
	queries := [][]string{
		{"query", "pods", "-n", ns, "--index", "uses=ConfigMap/cm-0", "-o", "name"},
		{"query", "pods", "-n", ns, "--index", "uses=ConfigMap/cm-1", "-o", "name"},
		{"query", "configmaps", "-n", ns, "--index", "used-by=Pod/p1", "-o", "name"},
		{"query", "configmaps", "-n", ns, "--index", "used-by", "-o", "name"},
		{"query", "pods", "-n", ns, "--index", "selected-by=Service/web", "-o", "name"},
		{"query", "pods", "-n", ns, "--group-by", "selected-by"},
	}
	// same waits until every query answers through the cache as it does
	// directly.
	same := func(when string) {
		t.Helper()
		for _, q := range queries {
			name := strings.Join(q, " ")
			waitFor(t, 60*time.Second, name+" through the cache to answer as --cache off "+when, func() bool {
				warm := e.run("", q...)
				direct := e.run("", append(q, "--cache", "off")...)
				if warm.ExitCode != 0 || direct.ExitCode != 0 {
					t.Fatalf("%s %s\nthrough the cache: %s\ndirect: %s", name, when, warm, direct)
				}
				return warm.Stdout == direct.Stdout && warm.Stderr == direct.Stderr
			})
		}
	}
	same("at first")
	if got := e.mustRun("", queries[0]...).Stdout; got != "pod/p1\npod/p3\n" {
		t.Errorf("%s = %q, want p1 and p3", strings.Join(queries[0], " "), got)
	}
	// Both sides of each relation change.
	if _, err := cs.CoreV1().Pods(ns).Create(t.Context(), usingPod(ns, "p4", "web", "cm-1"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s/p4: %v", ns, err)
	}
	kubectl("-n", ns, "label", "pod", "p1", "app=db", "--overwrite")
	kubectl("-n", ns, "delete", "pod", "p2", "--wait=false")
	kubectl("-n", ns, "delete", "configmap", "cm-0")
	same("after pods and a config map changed")
	if got := e.mustRun("", queries[3]...).Stdout; got != "configmap/cm-1\n" {
		t.Errorf("%s = %q after the changes, want cm-1 (cm-0 deleted)", strings.Join(queries[3], " "), got)
	}
	if got := e.mustRun("", queries[4]...).Stdout; got != "pod/p4\n" {
		t.Errorf("%s = %q after the changes, want p4", strings.Join(queries[4], " "), got)
	}
	createConfigMap(t, ns, "cm-0", "a")
	kubectl("-n", ns, "patch", "service", "web", "-p", `{"spec":{"selector":{"app":"db"}}}`)
	same("after the service's selector changed and the config map came back")
	if got := e.mustRun("", queries[4]...).Stdout; got != "pod/p1\npod/p3\n" {
		t.Errorf("%s = %q after the selector changed, want p1 and p3", strings.Join(queries[4], " "), got)
	}
	// The kept indexes lease their related types as the cache's own: no
	// command holds anything once the queries have ended.
	for _, tc := range e.onlyCache().Status.Caches {
		if tc.Users != 0 {
			t.Errorf("%s %v has %d users after the queries ended, want 0", tc.Type, tc.Namespaces, tc.Users)
		}
	}
}
