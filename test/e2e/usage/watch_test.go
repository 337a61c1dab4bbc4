package usage

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// watchedNamespace holds the Deployment TestWatchUsage scales; its pods
// are the package's last, so the tests before it see none of them.
const watchedNamespace = "usage-w"

const watched = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: watched
  namespace: usage-w
spec:
  replicas: 1
  selector:
    matchLabels: {app: watched}
  template:
    metadata:
      labels: {app: watched}
      annotations:
        kwok.x-k8s.io/usage-memory: 100Mi
    spec:
      containers:
      - {name: watched, image: registry.example.com/watched:v1}
`

// TestWatchUsage checks that watch --group-by … --sum usage.memory takes
// each new sample of the metrics API: a pod added after the watch started
// was in none of the samples it read at its start, so its usage reaches
// the table only through a later one.
func TestWatchUsage(t *testing.T) {
	c := framework.Current(t)
	framework.CreateNamespace(t, c.AdminClient(), watchedNamespace)
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: watched}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	kubectl(t, "rollout", "status", "deployment/watched", "-n", watchedNamespace, "--timeout="+rolloutTimeout.String())
	client, err := usage.NewClient(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(rolloutTimeout)
	for {
		s, err := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Namespace: watchedNamespace})
		if err == nil && len(s.Pods) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sample of the watched pod after %s (%v)", rolloutTimeout, err)
		}
		time.Sleep(time.Second)
	}

	w := framework.StartWatch(t, "pods", "-n", watchedNamespace, "--group-by", "namespace", "--sum", "usage.memory")
	if _, err := w.WaitForLine(time.Minute, func(line string) bool {
		f := strings.Fields(line)
		return len(f) == 3 && f[0] == watchedNamespace && f[1] == "1" && f[2] == "100Mi"
	}); err != nil {
		t.Fatalf("the table has no row %q: %v\nstdout:\n%s\nstderr:\n%s", "usage-w 1 100Mi", err, w.Stdout(), w.Stderr())
	}
	if !strings.Contains(w.Stderr(), "usage as of ") {
		t.Errorf("stderr %q does not say which sample the table starts from", w.Stderr())
	}

	kubectl(t, "scale", "deployment/watched", "-n", watchedNamespace, "--replicas=2")
	if _, err := w.WaitForLine(rolloutTimeout, func(line string) bool {
		return strings.HasPrefix(line, "namespace="+watchedNamespace+":") && strings.Contains(line, "usage.memory 100Mi → 200Mi")
	}); err != nil {
		t.Fatalf("no line adding the new pod's usage from a later sample: %v\nstdout:\n%s\nstderr:\n%s", err, w.Stdout(), w.Stderr())
	}
}

// queriedNamespace holds the Deployment TestQueryWatchUsage scales.
const queriedNamespace = "usage-q"

// TestQueryWatchUsage checks that query -w --group-by … --sum usage.memory
// takes each new sample of the metrics API, as watch --group-by does: the
// row of groups printed when a pod is added has the pod counted but not
// its usage, which no sample read yet had; a later sample brings it, and
// the row is printed again.
func TestQueryWatchUsage(t *testing.T) {
	c := framework.Current(t)
	framework.CreateNamespace(t, c.AdminClient(), queriedNamespace)
	manifest := strings.ReplaceAll(watched, "namespace: "+watchedNamespace, "namespace: "+queriedNamespace)
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: manifest}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	kubectl(t, "rollout", "status", "deployment/watched", "-n", queriedNamespace, "--timeout="+rolloutTimeout.String())
	client, err := usage.NewClient(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(rolloutTimeout)
	for {
		s, err := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Namespace: queriedNamespace})
		if err == nil && len(s.Pods) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sample of the watched pod after %s (%v)", rolloutTimeout, err)
		}
		time.Sleep(time.Second)
	}

	q := framework.Start(t, framework.Cmd{Args: []string{"informer", "query", "pods", "-n", queriedNamespace, "-w", "--group-by", "namespace", "--sum", "usage.memory"}, Timeout: 2*rolloutTimeout + time.Minute})
	defer func() { _ = q.Interrupt() }()
	row := func(count, memory string) func(string) bool {
		return func(line string) bool {
			f := strings.Fields(line)
			return len(f) == 3 && f[0] == queriedNamespace && f[1] == count && f[2] == memory
		}
	}
	if _, err := q.WaitForLine(time.Minute, row("1", "100Mi")); err != nil {
		t.Fatalf("query -w has no row %q: %v\nstdout:\n%s\nstderr:\n%s", "usage-q 1 100Mi", err, q.Stdout(), q.Stderr())
	}
	if !strings.Contains(q.Stderr(), "usage as of ") {
		t.Errorf("stderr %q does not say which sample the table starts from", q.Stderr())
	}

	kubectl(t, "scale", "deployment/watched", "-n", queriedNamespace, "--replicas=2")
	if _, err := q.WaitForLine(rolloutTimeout, row("2", "200Mi")); err != nil {
		t.Fatalf("no row with the new pod's usage from a later sample: %v\nstdout:\n%s\nstderr:\n%s", err, q.Stdout(), q.Stderr())
	}
	if strings.Contains(q.Stderr(), "warning") {
		t.Errorf("stderr has a warning:\n%s", q.Stderr())
	}
}
