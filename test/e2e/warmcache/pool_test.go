package warmcache

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// createPods creates namespace ns with pods p-0… labelled app=x (even) or
// app=y (odd). No scheduler runs in this package: they stay pending and
// unchanged until the test changes them.
func createPods(t *testing.T, ns string, n int) {
	t.Helper()
	cs := framework.Current(t).AdminClient()
	framework.CreateNamespace(t, cs, ns)
	for i := range n {
		app := "x"
		if i%2 == 1 {
			app = "y"
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p-" + strconv.Itoa(i), Namespace: ns, Labels: map[string]string{"app": app}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
		}
		if _, err := cs.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod %s/%s: %v", ns, pod.Name, err)
		}
	}
}

// patchPod applies a JSON merge patch to pod ns/name.
func patchPod(t *testing.T, ns, name, patch string) {
	t.Helper()
	cs := framework.Current(t).AdminClient()
	if _, err := cs.CoreV1().Pods(ns).Patch(t.Context(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patching pod %s/%s with %s: %v", ns, name, patch, err)
	}
}

// podCaches returns the running cache's informers of pods, as "PURPOSE
// NAMESPACES SELECTOR".
func (e *env) podCaches() []string {
	e.t.Helper()
	res := e.mustRun(framework.NoKubeconfig, "cache", "status", "-o", "json")
	var st []struct {
		Status *struct {
			Caches []struct {
				Type          string   `json:"type"`
				Namespaces    []string `json:"namespaces"`
				LabelSelector string   `json:"labelSelector"`
				Purpose       string   `json:"purpose"`
			} `json:"caches"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil {
		e.t.Fatalf("decoding cache status -o json: %v\n%s", err, res)
	}
	if len(st) != 1 || st[0].Status == nil {
		e.t.Fatalf("cache status lists %d caches, want 1 answering: %s", len(st), res)
	}
	var out []string
	for _, tc := range st[0].Status.Caches {
		if tc.Type == "pods" {
			out = append(out, strings.TrimSpace(tc.Purpose+" "+strings.Join(tc.Namespaces, ",")+" "+tc.LabelSelector))
		}
	}
	return out
}

// TestNarrowerQueriesShareTheInformerOfAllNamespaces queries pods of all
// namespaces through the cache, then of one or two namespaces, with and
// without a label selector: every answer is the direct one, byte for
// byte, and the cache holds one informer of pods for all of them.
func TestNarrowerQueriesShareTheInformerOfAllNamespaces(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-pool")
	createPods(t, ns, 6)
	e.start("")
	e.mustRun("", "query", "pods", "-A", "-o", "name")
	queries := [][]string{
		{"query", "pods", "-A", "-o", "name"},
		{"query", "pods", "-n", ns, "-o", "name"},
		{"query", "pods", "-n", ns, "-l", "app=x", "-o", "json"},
		{"query", "pods", "-n", ns + ",default", "-l", "app in (x)", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name,APP:.metadata.labels.app"},
		{"query", "pods", "-n", ns, "-l", "app!=x", "--index", "label:app=y", "-o", "name"},
		{"query", "pods", "-n", ns, "--index", "label:app!=x", "-o", "name"},
		{"query", "pods", "-n", ns, "-l", "app", "--group-by", "label:app"},
		{"query", "pods", "-n", ns, "-l", "app=none"},
		{"query", "pods", "-n", "default", "-o", "name"},
		{"query", "pods", "-l", "app=x", "-A", "--group-by", "namespace"},
	}
	for _, q := range queries {
		name := strings.Join(q, " ")
		warm := e.run("", q...)
		direct := e.run("", append(q, "--cache", "off")...)
		if warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr || warm.ExitCode != direct.ExitCode {
			t.Errorf("%s\nthrough the cache: %s\ndirect: %s", name, warm, direct)
		}
	}
	if got := e.podCaches(); strings.Join(got, "\n") != "query" {
		t.Errorf("the cache holds these informers of pods: %q, want one, of all namespaces without a selector", got)
	}
}

// TestNarrowerWatchSharesTheInformerOfAllNamespaces runs `watch pods -n NS
// -l app=x` through a cache that watches pods of all namespaces already,
// next to the same watch with --cache off, relabels pods into and out of
// the selector, and wants the same events, line for line, in text and in
// JSON (the objects of DELETED events of pods that left the selector
// included), with one informer of pods in the cache.
func TestNarrowerWatchSharesTheInformerOfAllNamespaces(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-poolw")
	createPods(t, ns, 4) // p-0, p-2: app=x; p-1, p-3: app=y
	e.start("")
	all := e.startWatch("pods", "-A")
	args := []string{"pods", "-n", ns, "-l", "app=x", "--initial"}
	warmText := e.startWatch(args...)
	warmJSON := e.startWatch(append(args, "-o", "json")...)
	directText := e.startWatch(append(args, "--cache", "off")...)
	directJSON := e.startWatch(append(args, "-o", "json", "--cache", "off")...)
	if got := e.podCaches(); strings.Join(got, "\n") != "watch" {
		t.Errorf("the cache holds these informers of pods: %q, want one, of all namespaces without a selector", got)
	}

	patchPod(t, ns, "p-1", `{"metadata":{"labels":{"app":"x"}}}`)                   // in: ADDED
	patchPod(t, ns, "p-1", `{"metadata":{"annotations":{"note":"while in"}}}`)      // MODIFIED
	patchPod(t, ns, "p-3", `{"metadata":{"annotations":{"note":"while out"}}}`)     // nothing
	patchPod(t, ns, "p-0", `{"metadata":{"labels":{"app":"y"}}}`)                   // out: DELETED
	patchPod(t, ns, "p-0", `{"metadata":{"annotations":{"note":"after leaving"}}}`) // nothing
	patchPod(t, ns, "p-1", `{"metadata":{"labels":{"app":"y"}}}`)                   // out: DELETED
	cs := framework.Current(t).AdminClient()
	if err := cs.CoreV1().Pods(ns).Delete(t.Context(), "p-2", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}

	want := []string{
		"ADDED    pod/p-0 -n " + ns,
		"ADDED    pod/p-2 -n " + ns,
		"ADDED    pod/p-1 -n " + ns,
		"MODIFIED pod/p-1 -n " + ns,
		"DELETED  pod/p-0 -n " + ns,
		"DELETED  pod/p-1 -n " + ns,
		"MODIFIED pod/p-2 -n " + ns, // deletion requested
		"DELETED  pod/p-2 -n " + ns,
	}
	// waitForEnd waits for the DELETED event of p-2, the last, and returns
	// the event lines printed (text: without the diff lines).
	waitForEnd := func(p *framework.Process, name string, json bool) []string {
		t.Helper()
		isLast := func(l string) bool { return strings.HasPrefix(l, "DELETED  pod/p-2 ") }
		if json {
			isLast = func(l string) bool {
				return strings.HasPrefix(l, `{"type":"DELETED",`) && strings.Contains(l, `"name":"p-2"`)
			}
		}
		if _, err := p.WaitForLine(30*time.Second, isLast); err != nil {
			t.Fatalf("%s: no DELETED event of p-2: %v\nstdout:\n%s\nstderr:\n%s", name, err, p.Stdout(), p.Stderr())
		}
		var events []string
		for _, l := range strings.Split(strings.TrimRight(p.Stdout(), "\n"), "\n") {
			if json || !strings.HasPrefix(l, " ") {
				events = append(events, l)
			}
		}
		return events
	}
	for _, pair := range []struct {
		name         string
		warm, direct *framework.Process
		json         bool
	}{
		{"text", warmText, directText, false},
		{"-o json", warmJSON, directJSON, true},
	} {
		warm := waitForEnd(pair.warm, pair.name+" watch through the cache", pair.json)
		waitForEnd(pair.direct, pair.name+" direct watch", pair.json)
		matches := len(warm) == len(want)
		for i := 0; matches && i < len(want); i++ {
			matches = pair.json || strings.HasPrefix(warm[i], want[i])
		}
		if !matches {
			t.Errorf("%s: the watch through the cache printed events:\n%s\nwant:\n%s", pair.name, strings.Join(warm, "\n"), strings.Join(want, "\n"))
		}
		// The whole output, diffs and objects included, event for event,
		// the initial ones in key order both ways.
		if pair.warm.Stdout() != pair.direct.Stdout() {
			t.Errorf("%s: the watch through the cache printed\n%s\nthe direct watch\n%s", pair.name, pair.warm.Stdout(), pair.direct.Stdout())
		}
	}
	for _, p := range []*framework.Process{all, warmText, warmJSON, directText, directJSON} {
		if err := p.Interrupt(); err != nil {
			t.Fatal(err)
		}
		if res := p.Wait(); res.ExitCode != 0 {
			t.Errorf("interrupted watch: %s", res)
		}
	}
}

// TestIdleInformersAreEvicted starts a cache with --evict-after 2s: an
// informer stays while a watch uses it, is gone from cache status soon
// after the watch ends, and a later query starts it again.
func TestIdleInformersAreEvicted(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-evict")
	createPods(t, ns, 2)
	if res := e.run("", "cache", "start", "--evict-after", "500ms"); res.ExitCode != 1 || !strings.Contains(res.Stderr, "--evict-after must be 0 (never) or at least 1s") {
		t.Errorf("cache start --evict-after 500ms: %s\nwant exit 1 naming the flag", res)
	}
	e.start("", "--evict-after", "2s")
	w := e.startWatch("pods", "-n", ns)
	time.Sleep(4 * time.Second)
	if got := e.podCaches(); strings.Join(got, "\n") != "watch "+ns {
		t.Fatalf("4s into a watch with --evict-after 2s, the cache holds %q, want the watch's informer", got)
	}
	if err := w.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if res := w.Wait(); res.ExitCode != 0 {
		t.Fatalf("interrupted watch: %s", res)
	}
	ended := time.Now()
	waitFor(t, 20*time.Second, "the idle informer to be evicted", func() bool { return len(e.podCaches()) == 0 })
	if since := time.Since(ended); since < time.Second {
		t.Errorf("the informer was evicted %s after its last user left, before --evict-after 2s", since)
	}
	w = e.startWatch("pods", "-n", ns)
	if got := e.podCaches(); strings.Join(got, "\n") != "watch "+ns {
		t.Errorf("with a new watch after the eviction, the cache holds %q, want its informer again", got)
	}
	if err := w.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if res := w.Wait(); res.ExitCode != 0 {
		t.Errorf("interrupted watch: %s", res)
	}
}
