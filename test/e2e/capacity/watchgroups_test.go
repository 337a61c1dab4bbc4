package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// watchNamespace holds the Deployment whose scaling the grouped watch
// follows, apart from the workloads of TestCapacity.
const watchNamespace = "cap-watch"

// shopDeployment has pods of 100m CPU and 64Mi requested, a sidecar
// included (80m + 20m, 48Mi + 16Mi).
const shopDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  namespace: cap-watch
spec:
  replicas: 2
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      initContainers:
      - name: proxy
        image: registry.example.com/proxy:v1
        restartPolicy: Always
        resources:
          requests: {cpu: 20m, memory: 16Mi}
      containers:
      - name: shop
        image: registry.example.com/shop:v1
        resources:
          requests: {cpu: 80m, memory: 48Mi}
`

// TestWatchGroups follows a Deployment scaled up and down by the real
// controllers with watch --group-by --sum, its output not a terminal: the
// table of the synced state, then a line per change of the group, each
// count and sum as the pods' requests add up.
func TestWatchGroups(t *testing.T) {
	c := framework.Current(t)
	framework.CreateNamespace(t, c.AdminClient(), watchNamespace)
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: shopDeployment}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	kubectl(t, "rollout", "status", "deployment/shop", "-n", watchNamespace, "--timeout="+rolloutTimeout.String())

	p := framework.StartWatch(t, "pods", "-n", watchNamespace, "--group-by", "label:app", "--sum", "requests.cpu", "--sum", "requests.memory")
	defer func() {
		_ = p.Interrupt()
		if r := p.Wait(); r.ExitCode != 0 {
			t.Errorf("watch exited with %s", r)
		}
	}()
	for _, want := range []string{"LABEL:APP COUNT REQUESTS.CPU REQUESTS.MEMORY", "shop 2 200m 128Mi", "TOTAL 2 200m 128Mi"} {
		line, err := p.NextLine(time.Minute)
		if err != nil {
			t.Fatalf("waiting for the table: %v; stdout so far:\n%s", err, p.Stdout())
		}
		if got := strings.Join(strings.Fields(line), " "); got != want {
			t.Fatalf("table line = %q, want %q", got, want)
		}
	}

	// Each new pod is counted when the ReplicaSet creates it, before it is
	// scheduled: a Pending pod holds its requests. Scheduling and starting
	// it change nothing grouped, so print nothing.
	kubectl(t, "scale", "deployment/shop", "-n", watchNamespace, "--replicas=4")
	expectGroupLines(t, p, []string{
		"label:app=shop: count 2 → 3, requests.cpu 200m → 300m, requests.memory 128Mi → 192Mi",
		"label:app=shop: count 3 → 4, requests.cpu 300m → 400m, requests.memory 192Mi → 256Mi",
	})
	kubectl(t, "rollout", "status", "deployment/shop", "-n", watchNamespace, "--timeout="+rolloutTimeout.String())

	// A deleted pod counts until it is gone (kwok ends it at once).
	kubectl(t, "scale", "deployment/shop", "-n", watchNamespace, "--replicas=1")
	expectGroupLines(t, p, []string{
		"label:app=shop: count 4 → 3, requests.cpu 400m → 300m, requests.memory 256Mi → 192Mi",
		"label:app=shop: count 3 → 2, requests.cpu 300m → 200m, requests.memory 192Mi → 128Mi",
		"label:app=shop: count 2 → 1, requests.cpu 200m → 100m, requests.memory 128Mi → 64Mi",
	})

	// Nothing else was printed: pods' status updates change no group.
	kubectl(t, "rollout", "status", "deployment/shop", "-n", watchNamespace, "--timeout="+rolloutTimeout.String())
	time.Sleep(time.Second)
	if out := strings.TrimSpace(p.Stdout()); len(strings.Split(out, "\n")) != 3+5 {
		t.Errorf("watch printed more than the table's 3 lines and 5 changes:\n%s", out)
	}
}

// expectGroupLines reads the watch's next lines and compares them with want,
// in order.
func expectGroupLines(t *testing.T, p *framework.Process, want []string) {
	t.Helper()
	for i, w := range want {
		line, err := p.NextLine(rolloutTimeout)
		if err != nil {
			t.Fatalf("waiting for change %d %q: %v; stdout so far:\n%s", i+1, w, err, p.Stdout())
		}
		if line != w {
			t.Fatalf("change %d = %q, want %q\nstdout so far:\n%s", i+1, line, w, p.Stdout())
		}
	}
}
