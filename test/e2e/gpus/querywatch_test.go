package gpus

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// laterNamespace holds the pod TestQueryWatchSumGlobs creates once its
// table is printed.
const laterNamespace = "gpu-later"

// laterPod asks for a GPU, which the table has a column for, and a MIG
// slice no pod asked for when the table was first printed, which it has
// none for.
const laterPod = `
apiVersion: v1
kind: Pod
metadata:
  name: later
  namespace: gpu-later
spec:
  containers:
  - name: a
    image: registry.example.com/later:v1
    resources:
      requests: {nvidia.com/gpu: "1", nvidia.com/mig-3g.20gb: "1"}
      limits: {nvidia.com/gpu: "1", nvidia.com/mig-3g.20gb: "1"}
`

// TestQueryWatchSumGlobs checks query -w --group-by namespace --sum
// 'requests.nvidia.com/*' off a terminal: the table printed once synced
// has a column per nvidia.com resource the pods request, each equal per
// namespace to the test's own sums; a pod created later prints its
// namespace's row and TOTAL under the same columns, though it asks for a
// resource no pod had asked for (the columns are fixed at the first table).
func TestQueryWatchSumGlobs(t *testing.T) {
	want := namespaceGlobSums(t)
	resources := globResources
	client := framework.Current(t).AdminClient()
	w := framework.Start(t, framework.Cmd{Args: []string{"informer", "query", "pods", "-A", "-w", "--group-by", "namespace", "--sum", "requests.nvidia.com/*"}, Timeout: 5 * time.Minute})
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
	check := func(line string, wv []int64) {
		t.Helper()
		f := strings.Fields(line)
		if len(f) != 2+len(resources) {
			t.Errorf("row %q: %d cells, want the header's %d", line, len(f), 2+len(resources))
			return
		}
		for j := range resources {
			q, err := resource.ParseQuantity(f[2+j])
			if err != nil || q.Value() != wv[j] {
				t.Errorf("%s %s: %s, the test's own sum %d", f[0], header[2+j], f[2+j], wv[j])
			}
		}
	}
	rows := 0
	for _, line := range lines[1:] {
		wv, ok := want[strings.Fields(line)[0]]
		if !ok {
			t.Errorf("row %q: unexpected", line)
			continue
		}
		rows++
		check(line, wv)
	}
	if rows != len(want) {
		t.Errorf("%d rows, want a row per namespace (%d) and TOTAL:\n%s", rows, len(want)-1, w.Stdout())
	}

	framework.CreateNamespace(t, client, laterNamespace)
	// The other tests of the package expect the columns of the resources
	// their fixture requests: the pod goes when this test ends.
	t.Cleanup(func() {
		kubectl(t, "delete", "pod", "later", "-n", laterNamespace, "--ignore-not-found", "--wait=true")
	})
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: laterPod}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	total := append([]int64(nil), want["TOTAL"]...)
	total[0]++
	changed := map[string]string{}
	for len(changed) < 2 {
		line, err := w.NextLine(time.Minute)
		if err != nil {
			t.Fatalf("the rows of %s and TOTAL after the pod was created: %v\nstdout:\n%s\nstderr:\n%s", laterNamespace, err, w.Stdout(), w.Stderr())
		}
		if f := strings.Fields(line); len(f) > 0 && (f[0] == laterNamespace || f[0] == "TOTAL") {
			changed[f[0]] = line
		}
	}
	check(changed[laterNamespace], []int64{1, 0, 0})
	check(changed["TOTAL"], total)
}
