package gpus

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// migNamespace holds a pod asking for MIG slices no node has: pending, it
// counts in query's sums.
const migNamespace = "gpu-mig"

const migPod = `
apiVersion: v1
kind: Pod
metadata:
  name: sliced
  namespace: gpu-mig
spec:
  containers:
  - name: a
    image: registry.example.com/sliced:v1
    resources:
      requests: {nvidia.com/mig-1g.5gb: "2"}
      limits: {nvidia.com/mig-1g.5gb: "2"}
  - name: b
    image: registry.example.com/sliced:v1
    resources:
      requests: {nvidia.com/mig-2g.10gb: "1"}
      limits: {nvidia.com/mig-2g.10gb: "1"}
`

// resourceRequest is what the scheduler counts of r for pod by the
// documented rule for pods without sidecars or overhead: the larger of the
// app containers' sum and the largest init container; a Succeeded or
// Failed pod holds nothing.
func resourceRequest(p *corev1.Pod, r corev1.ResourceName) int64 {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return 0
	}
	var apps, inits int64
	for _, c := range p.Spec.Containers {
		q := c.Resources.Requests[r]
		apps += q.Value()
	}
	for _, c := range p.Spec.InitContainers {
		q := c.Resources.Requests[r]
		inits = max(inits, q.Value())
	}
	return max(apps, inits)
}

// TestQuerySumGlobs checks query --sum with globs on the resource name:
// requests.nvidia.com/* adds a column per nvidia.com resource the pods
// request, requests.nvidia.com/mig-* per MIG slice, each equal per
// namespace to the test's own sums of kubectl get pods -A -o json.
func TestQuerySumGlobs(t *testing.T) {
	setUp(t)
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), migNamespace)
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: migPod}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	kubectl(t, "wait", "pod/sliced", "-n", migNamespace, "--for=condition=PodScheduled=false", "--timeout="+rolloutTimeout.String())

	var list corev1.PodList
	if err := json.Unmarshal([]byte(kubectl(t, "get", "pods", "-A", "-o", "json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		glob      string
		resources []corev1.ResourceName
	}{
		{"requests.nvidia.com/*", []corev1.ResourceName{"nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "nvidia.com/mig-2g.10gb"}},
		{"requests.nvidia.com/mig-*", []corev1.ResourceName{"nvidia.com/mig-1g.5gb", "nvidia.com/mig-2g.10gb"}},
	} {
		t.Run(tc.glob, func(t *testing.T) {
			r := informer(t, "query", "pods", "-A", "--group-by", "namespace", "--sum", tc.glob)
			lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
			header := strings.Fields(lines[0])
			wantHeader := []string{"NAMESPACE", "COUNT"}
			for _, res := range tc.resources {
				wantHeader = append(wantHeader, strings.ToUpper("requests."+string(res)))
			}
			if strings.Join(header, " ") != strings.Join(wantHeader, " ") {
				t.Fatalf("header %q, want %q\n%s", header, wantHeader, r.Stdout)
			}
			want := map[string][]int64{}
			for i := range list.Items {
				p := &list.Items[i]
				for _, key := range []string{p.Namespace, "TOTAL"} {
					if want[key] == nil {
						want[key] = make([]int64, len(tc.resources))
					}
					for j, res := range tc.resources {
						want[key][j] += resourceRequest(p, res)
					}
				}
			}
			rows := 0
			for _, line := range lines[1:] {
				f := strings.Fields(line)
				w, ok := want[f[0]]
				if !ok || len(f) != 2+len(tc.resources) {
					t.Errorf("row %q: unexpected", line)
					continue
				}
				rows++
				for j := range tc.resources {
					q, err := resource.ParseQuantity(f[2+j])
					if err != nil || q.Value() != w[j] {
						t.Errorf("%s %s: %s, the test's own sum %d", f[0], header[2+j], f[2+j], w[j])
					}
				}
			}
			if rows != len(want) {
				t.Errorf("%d rows, want a row per namespace (%d) and TOTAL:\n%s", rows, len(want)-1, r.Stdout)
			}
		})
	}
}

// TestWatchSumGlobs checks watch --group-by namespace --sum
// 'requests.nvidia.com/*': its table, printed once every context has
// synced, has a column per nvidia.com resource the pods request, each
// equal per namespace to the test's own sums.
func TestWatchSumGlobs(t *testing.T) {
	want := namespaceGlobSums(t)
	resources := globResources
	w := framework.StartWatch(t, "pods", "-A", "--group-by", "namespace", "--sum", "requests.nvidia.com/*")
	defer func() { _ = w.Interrupt() }()
	if _, err := w.WaitForLine(time.Minute, func(line string) bool { return strings.HasPrefix(line, "TOTAL") }); err != nil {
		t.Fatalf("no table: %v\nstdout:\n%s\nstderr:\n%s", err, w.Stdout(), w.Stderr())
	}
	lines := strings.Split(strings.TrimSpace(w.Stdout()), "\n")
	header := strings.Fields(lines[0])
	wantHeader := "NAMESPACE COUNT REQUESTS.NVIDIA.COM/GPU REQUESTS.NVIDIA.COM/MIG-1G.5GB REQUESTS.NVIDIA.COM/MIG-2G.10GB"
	if strings.Join(header, " ") != wantHeader {
		t.Fatalf("header %q, want %q\n%s", header, wantHeader, w.Stdout())
	}
	rows := 0
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		wv, ok := want[f[0]]
		if !ok || len(f) != 2+len(resources) {
			t.Errorf("row %q: unexpected", line)
			continue
		}
		rows++
		for j := range resources {
			q, err := resource.ParseQuantity(f[2+j])
			if err != nil || q.Value() != wv[j] {
				t.Errorf("%s %s: %s, the test's own sum %d", f[0], header[2+j], f[2+j], wv[j])
			}
		}
	}
	if rows != len(want) {
		t.Errorf("%d rows, want a row per namespace (%d) and TOTAL:\n%s", rows, len(want)-1, w.Stdout())
	}
}

// globResources are the nvidia.com resources the fixture and the MIG pod
// request, in the order of their columns.
var globResources = []corev1.ResourceName{"nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "nvidia.com/mig-2g.10gb"}

// namespaceGlobSums sets up the fixture and the MIG pod and returns the
// test's own sums of globResources per namespace and in all (TOTAL), from
// kubectl get pods -A -o json.
func namespaceGlobSums(t *testing.T) map[string][]int64 {
	t.Helper()
	setUp(t)
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), migNamespace)
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: migPod}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	var list corev1.PodList
	if err := json.Unmarshal([]byte(kubectl(t, "get", "pods", "-A", "-o", "json")), &list); err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{}
	for i := range list.Items {
		p := &list.Items[i]
		for _, key := range []string{p.Namespace, "TOTAL"} {
			if want[key] == nil {
				want[key] = make([]int64, len(globResources))
			}
			for j, res := range globResources {
				want[key][j] += resourceRequest(p, res)
			}
		}
	}
	return want
}
