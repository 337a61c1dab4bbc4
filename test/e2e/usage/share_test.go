package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// sharedNamespace holds the workloads of TestUsageAgainstRequests: one that
// uses less than it requests, one that uses more, and a pod that requests
// nothing.
const sharedNamespace = "usage-r"

const sharedWorkloads = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: lazy
  namespace: usage-r
spec:
  replicas: 2
  selector:
    matchLabels: {app: lazy}
  template:
    metadata:
      labels: {app: lazy}
      annotations:
        kwok.x-k8s.io/usage-cpu: 150m
        kwok.x-k8s.io/usage-memory: 200Mi
    spec:
      containers:
      - name: lazy
        image: registry.example.com/lazy:v1
        resources:
          requests: {cpu: 700m, memory: 768Mi}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: hungry
  namespace: usage-r
spec:
  replicas: 1
  selector:
    matchLabels: {app: hungry}
  template:
    metadata:
      labels: {app: hungry}
      annotations:
        kwok.x-k8s.io/usage-cpu: 250m
        kwok.x-k8s.io/usage-memory: 100Mi
    spec:
      containers:
      - name: a
        image: registry.example.com/hungry:v1
        resources:
          requests: {cpu: 30m, memory: 64Mi}
      - name: b
        image: registry.example.com/hungry:v1
        resources:
          requests: {cpu: 70m}
---
apiVersion: v1
kind: Pod
metadata:
  name: bare
  namespace: usage-r
  annotations:
    kwok.x-k8s.io/usage-cpu: 40m
    kwok.x-k8s.io/usage-memory: 10Mi
spec:
  containers:
  - {name: bare, image: registry.example.com/bare:v1}
`

// shareCell is one cell of a share measure as printed: what is used, what
// it is a share of, and the percentage ("" when it is a share of nothing).
type shareCell struct {
	used, of resource.Quantity
	percent  string
}

// shareRows reads a grouped table of keys key columns, a count and share
// cells ("150m/700m (21%)", or "40m/0"), by the key columns joined by "/".
func shareRows(t *testing.T, out string, keys int) map[string][]shareCell {
	t.Helper()
	rows := map[string][]shareCell{}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		key, rest := strings.Join(f[:keys], "/"), f[keys+1:]
		if f[0] == "TOTAL" {
			key, rest = "TOTAL", f[2:]
		}
		var cells []shareCell
		for i := 0; i < len(rest); i++ {
			used, of, ok := strings.Cut(rest[i], "/")
			if !ok {
				t.Fatalf("line %q: cell %q is not USED/OF", line, rest[i])
			}
			c := shareCell{used: resource.MustParse(used), of: resource.MustParse(of)}
			if i+1 < len(rest) && strings.HasPrefix(rest[i+1], "(") {
				c.percent = strings.Trim(rest[i+1], "()")
				i++
			}
			cells = append(cells, c)
		}
		rows[key] = cells
	}
	return rows
}

// wantShare is the test's own share: used of of, the percentage rounded
// down, none when of is zero.
func wantShare(used, of int64) string {
	if of == 0 {
		return ""
	}
	p := new(big.Int).Quo(big.NewInt(used*100), big.NewInt(of))
	return p.String() + "%"
}

// TestUsageAgainstRequests checks the share measures usage.cpu/requests.cpu
// and usage.memory/requests.memory per pod and per owner-root, sorted and
// cut, against the test's own sums of kubectl top's rows and of the pods'
// requests from kubectl get pods -o json, all read within one sample.
func TestUsageAgainstRequests(t *testing.T) {
	c := framework.Current(t)
	framework.CreateNamespace(t, c.AdminClient(), sharedNamespace)
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: sharedWorkloads}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	timeout := "--timeout=" + rolloutTimeout.String()
	kubectl(t, "rollout", "status", "deployment/lazy", "-n", sharedNamespace, timeout)
	kubectl(t, "rollout", "status", "deployment/hungry", "-n", sharedNamespace, timeout)
	kubectl(t, "wait", "--for=condition=Ready", "pod/bare", "-n", sharedNamespace, timeout)
	client, err := usage.NewClient(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	config := usage.Config{Pods: true, Namespace: sharedNamespace}
	deadline := time.Now().Add(rolloutTimeout)
	for {
		s, err := usage.Fetch(context.Background(), client, config)
		if err == nil && len(s.Pods) == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the metrics API has %s (%v); want samples of 4 pods", rolloutTimeout, describe(s), err)
		}
		time.Sleep(time.Second)
	}

	shares := []string{"--sum", "usage.cpu/requests.cpu", "--sum", "usage.memory/requests.memory"}
	var perPod, byOwner, top framework.Result
	var topPods, podsJSON string
	for attempt := 1; ; attempt++ {
		before, err := usage.Fetch(context.Background(), client, config)
		if err != nil {
			t.Fatal(err)
		}
		perPod = informer(t, append([]string{"query", "pods", "-n", sharedNamespace, "--indexer", podIndexer, "--group-by", "pod"}, shares...)...)
		byOwner = informer(t, append([]string{"query", "pods", "-n", sharedNamespace, "--group-by", "owner-root"}, shares...)...)
		top = informer(t, append([]string{"query", "pods", "-n", sharedNamespace, "--group-by", "owner-root", "--sort-by", "usage.cpu/requests.cpu", "--top", "1"}, shares...)...)
		topPods = kubectl(t, "top", "pod", "-n", sharedNamespace, "--no-headers")
		podsJSON = kubectl(t, "get", "pods", "-n", sharedNamespace, "-o", "json")
		after, err := usage.Fetch(context.Background(), client, config)
		if err != nil {
			t.Fatal(err)
		}
		if after.SameSamples(before) {
			break
		}
		if attempt == 5 {
			t.Fatalf("a new sample came while the commands ran, %d times", attempt)
		}
		t.Logf("attempt %d: a new sample came while the commands ran (%s); again", attempt, firstDifference(before, after))
	}

	// The test's own numbers: usage from kubectl top (memory in whole MiB,
	// as kwok's annotations set it), requests summed over the containers.
	used := parseTop(t, topPods, podsOneNamespace)
	var list corev1.PodList
	if err := json.Unmarshal([]byte(podsJSON), &list); err != nil {
		t.Fatal(err)
	}
	type four struct{ cpu, cpuOf, memory, memoryOf int64 }
	perPodWant, byOwnerWant := map[string]*four{}, map[string]*four{}
	total := &four{}
	for _, pod := range list.Items {
		u, ok := used[pod.Name]
		if !ok {
			t.Fatalf("kubectl top has no row of pod %s", pod.Name)
		}
		f := four{cpu: u.milliCPU, memory: u.memoryMiB << 20}
		for _, ctr := range pod.Spec.Containers {
			cpu, memory := ctr.Resources.Requests[corev1.ResourceCPU], ctr.Resources.Requests[corev1.ResourceMemory]
			f.cpuOf += cpu.MilliValue()
			f.memoryOf += memory.Value()
		}
		perPodWant[sharedNamespace+"/"+pod.Name] = &f
		owner := ownerRoot(t, pod)
		if byOwnerWant[owner] == nil {
			byOwnerWant[owner] = &four{}
		}
		for _, sum := range []*four{byOwnerWant[owner], total} {
			sum.cpu += f.cpu
			sum.cpuOf += f.cpuOf
			sum.memory += f.memory
			sum.memoryOf += f.memoryOf
		}
	}
	byOwnerWant["TOTAL"] = total

	check := func(what string, rows map[string][]shareCell, want map[string]*four) {
		t.Helper()
		if len(rows) != len(want) {
			t.Errorf("%s: %d rows, want %d (%v)", what, len(rows), len(want), rows)
		}
		for key, w := range want {
			cells := rows[key]
			if len(cells) != 2 {
				t.Errorf("%s %s: cells %v, want a cpu share and a memory share", what, key, cells)
				continue
			}
			got := fmt.Sprintf("%dm/%dm %s, %d/%d %s", cells[0].used.MilliValue(), cells[0].of.MilliValue(), cells[0].percent,
				cells[1].used.Value(), cells[1].of.Value(), cells[1].percent)
			exp := fmt.Sprintf("%dm/%dm %s, %d/%d %s", w.cpu, w.cpuOf, wantShare(w.cpu, w.cpuOf), w.memory, w.memoryOf, wantShare(w.memory, w.memoryOf))
			if got != exp {
				t.Errorf("%s %s: shares %s, the test's own %s", what, key, got, exp)
			}
		}
	}
	perPodWant["TOTAL"] = total
	check("per pod", shareRows(t, perPod.Stdout, 1), perPodWant)
	check("per owner-root", shareRows(t, byOwner.Stdout, 1), byOwnerWant)
	if bare := perPodWant[sharedNamespace+"/bare"]; bare == nil || bare.cpuOf != 0 {
		t.Errorf("pod bare requests %v, want nothing: the share of nothing is not checked", bare)
	}

	// Sorted by the cpu share, the workload that uses most of what it asks
	// for comes first: hungry, two containers of 250m each of 100m.
	rows := shareRows(t, top.Stdout, 1)
	if len(rows) != 2 || rows["Deployment/hungry"] == nil || rows["TOTAL"] == nil {
		t.Errorf("--sort-by usage.cpu/requests.cpu --top 1: rows %v, want Deployment/hungry and TOTAL\n%s", rows, top.Stdout)
	}
}
