package fleet

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// The objects of the warm cache tests: in context fleet-I, namespace warm
// holds ConfigMap cfg, Service web (selecting app=web), Deployment web
// (no replicas: no controller runs) and ReplicaSet web-1 owned by it, and
// I+1 pods web-J owned by the ReplicaSet, bound to node-(J%2), requesting
// 10m×J of CPU, reading cfg.
const warmNamespace = "warm"

var (
	warmSeedOnce sync.Once
	warmSeedErr  error
)

// seedWarm creates the objects of namespace warm once per package run.
func seedWarm(t *testing.T) {
	t.Helper()
	f := framework.CurrentFleet(t)
	create := func(c, manifest string) error {
		r := framework.Run(t, framework.Cmd{Args: []string{"create", "-f", "-", "--context", c}, Kubeconfig: f.Kubeconfig, Stdin: manifest})
		if r.ExitCode != 0 {
			return fmt.Errorf("creating the objects of namespace %s in %s: %s", warmNamespace, c, r)
		}
		return nil
	}
	uid := func(c, kind, name string) (string, error) {
		r := framework.Run(t, framework.Cmd{Args: []string{"get", kind, name, "-n", warmNamespace, "--context", c, "-o", "jsonpath={.metadata.uid}"}, Kubeconfig: f.Kubeconfig})
		if r.ExitCode != 0 || r.Stdout == "" {
			return "", fmt.Errorf("reading the UID of %s %s in %s: %s", kind, name, c, r)
		}
		return r.Stdout, nil
	}
	warmSeedOnce.Do(func() {
		for i, c := range f.Contexts {
			base := fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: default, namespace: %[1]s}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: %[1]s}
data: {mode: warm}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: %[1]s}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: %[1]s, labels: {app: web}}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx:1.27}]}
`, warmNamespace)
			if warmSeedErr = create(c, base); warmSeedErr != nil {
				return
			}
			deployUID, err := uid(c, "deployment", "web")
			if err != nil {
				warmSeedErr = err
				return
			}
			rs := fmt.Sprintf(`apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-1
  namespace: %s
  labels: {app: web}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: %s, controller: true}]
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx:1.27}]}
`, warmNamespace, deployUID)
			if warmSeedErr = create(c, rs); warmSeedErr != nil {
				return
			}
			rsUID, err := uid(c, "replicaset", "web-1")
			if err != nil {
				warmSeedErr = err
				return
			}
			var pods string
			for j := 1; j <= i+2; j++ {
				pods += fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: web-%d
  namespace: %s
  labels: {app: web}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: %s, controller: true}]
spec:
  nodeName: node-%d
  containers:
  - name: c
    image: nginx:1.27
    envFrom: [{configMapRef: {name: cfg}}]
    resources:
      requests: {cpu: %dm}
---
`, j, warmNamespace, rsUID, j%2, 10*j)
			}
			if warmSeedErr = create(c, pods); warmSeedErr != nil {
				return
			}
		}
	})
	if warmSeedErr != nil {
		t.Fatal(warmSeedErr)
	}
}

// blankAges returns out with each table's AGE cells replaced by "-" and
// the columns joined by one space (tables are realigned when a width
// changes): the only cells that differ between two runs a moment apart.
func blankAges(out string) string {
	var b strings.Builder
	age := -1
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			age = -1 // a blank line separates tables
			b.WriteString("\n")
			continue
		}
		if age < 0 {
			for i, f := range fields {
				if f == "AGE" {
					age = i
				}
			}
		} else if age < len(fields) {
			fields[age] = "-"
		}
		b.WriteString(strings.Join(fields, " ") + "\n")
	}
	return b.String()
}

// warmLine and directLine are the -v=1 lines of a fleet query that say how
// context c was answered.
func warmLine(c string) string {
	return `"query: answered by the warm cache" context="` + c + `"`
}
func directLine(c string) string {
	return `"query: reading the context directly" context="` + c + `"`
}

// TestFleetWarmCachesAnswerAsDirectReads starts warm caches for two of the
// three contexts and checks, for several query shapes, that the fleet
// answer read through them is the answer read directly (--cache off), AGE
// aside; that -v=1 says which contexts the caches answered and which were
// read directly; that a dead context is still named once with exit 1; and
// that the caches are stopped at the end.
func TestFleetWarmCachesAnswerAsDirectReads(t *testing.T) {
	seed(t)
	seedWarm(t)
	f := framework.CurrentFleet(t)
	e := newCacheEnv(t)
	c1, c2, c3 := f.Contexts[0], f.Contexts[1], f.Contexts[2]
	r := e.run("cache", "start", "--context", c1+","+c2, "--idle-timeout", "10m")
	if r.ExitCode != 0 || r.TimedOut {
		t.Fatalf("cache start: %s", r)
	}
	for _, c := range []string{c1, c2} {
		if !strings.Contains(r.Stdout, "context "+c+": started a cache for ") {
			t.Errorf("cache start does not say it started the cache of %s: %s", c, r)
		}
	}

	ns := []string{"-n", warmNamespace}
	shapes := [][]string{
		append([]string{"pods"}, ns...),
		append([]string{"pods", "-o", "wide"}, ns...),
		append([]string{"pods,replicasets,deployments,configmaps", "-o", "name"}, ns...),
		append([]string{"pods,replicasets", "-o", "json"}, ns...),
		append([]string{"pods", "-o", "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,CPU:.spec.containers[0].resources.requests.cpu"}, ns...),
		{"pods", "-A", "--group-by", "context,node", "--sum", "requests.cpu"},
		{"pods", "-A", "--group-by", "node", "--sum", "requests.cpu", "--sort-by", "requests.cpu"},
		append([]string{"pods", "--index", "owner-root=Deployment/web"}, ns...),
		append([]string{"pods", "--group-by", "owner-root,node.label:topology.kubernetes.io/zone"}, ns...),
		append([]string{"pods", "--index", "uses=ConfigMap/cfg", "--sort-by", "{.spec.containers[0].resources.requests.cpu}"}, ns...),
		append([]string{"pods", "--index", "selected-by=Service/web", "-o", "wide", "--sort-by", "{.metadata.name}"}, ns...),
	}
	for _, shape := range shapes {
		t.Run(strings.Join(shape, " "), func(t *testing.T) {
			args := append(append([]string{"query"}, shape...), "--context", "fleet-*")
			warm := e.run(append(args, "-v=1")...)
			if warm.ExitCode != 0 || warm.TimedOut {
				t.Fatalf("with warm caches: %s", warm)
			}
			direct := e.run(append(args, "--cache", "off", "-v=1")...)
			if direct.ExitCode != 0 || direct.TimedOut {
				t.Fatalf("--cache off: %s", direct)
			}
			if strings.Count(direct.Stdout, "\n") < 2 {
				t.Fatalf("--cache off answers almost nothing, the comparison would prove little: %s", direct)
			}
			if got, want := blankAges(warm.Stdout), blankAges(direct.Stdout); got != want {
				t.Errorf("with warm caches:\n%s\nwant (--cache off):\n%s", got, want)
			}
			for _, c := range []string{c1, c2} {
				if !strings.Contains(warm.Stderr, warmLine(c)) {
					t.Errorf("-v=1 does not say the warm cache answered %s: %s", c, warm.Stderr)
				}
				if !strings.Contains(direct.Stderr, directLine(c)+` reason="--cache off"`) {
					t.Errorf("--cache off -v=1 does not say %s was read directly because of --cache off: %s", c, direct.Stderr)
				}
			}
			if !strings.Contains(warm.Stderr, directLine(c3)) || strings.Contains(warm.Stderr, warmLine(c3)) {
				t.Errorf("-v=1 does not say %s, which has no cache, was read directly: %s", c3, warm.Stderr)
			}
		})
	}

	// The caches hold what they answered: pods of each context.
	entries, _ := e.status(0, "--context", c1+","+c2)
	for _, en := range entries {
		if en.Status == nil {
			t.Fatalf("cache status: no running cache for %v: %+v", en.Contexts, en)
		}
		pods := 0
		for _, c := range en.Status.Caches {
			if c.Type == "pods" {
				pods += c.Objects
			}
		}
		if pods == 0 {
			t.Errorf("cache of %v holds no pods after the warm queries: %+v", en.Contexts, en.Status.Caches)
		}
	}

	// A dead context beside two warm ones: named once, the others
	// answered as without it, exit 1.
	want := e.run("query", "pods", "-n", warmNamespace, "--context", "fleet-*", "--cache", "off")
	r = e.run("query", "pods", "-n", warmNamespace, "--context", "fleet-*,"+f.Dead, "-v=1")
	if r.ExitCode != 1 || r.TimedOut {
		t.Fatalf("with a dead context: want exit 1: %s", r)
	}
	if n := strings.Count(r.Stderr, "error: context "+f.Dead+":"); n != 1 {
		t.Errorf("the dead context is named %d times on stderr, want once: %s", n, r.Stderr)
	}
	if got, want := blankAges(r.Stdout), blankAges(want.Stdout); got != want {
		t.Errorf("with a dead context:\n%s\nwant the others' answer:\n%s", got, want)
	}
	for _, c := range []string{c1, c2} {
		if !strings.Contains(r.Stderr, warmLine(c)) {
			t.Errorf("with a dead context, -v=1 does not say the warm cache answered %s: %s", c, r.Stderr)
		}
	}

	// A query a cache declines (an --indexer that reads now) is read
	// directly in every context, and -v=1 says why.
	r = e.run("query", "pods", "-n", warmNamespace, "--context", "fleet-*", "-v=1",
		"--indexer", `old=now - timestamp(object.metadata.creationTimestamp) > duration("1s")`, "--group-by", "context,old")
	if r.ExitCode != 0 || r.TimedOut {
		t.Fatalf("query with an --indexer that reads now: %s", r)
	}
	for _, c := range []string{c1, c2} {
		if !strings.Contains(r.Stderr, directLine(c)+` reason="the warm cache declined: --indexer old reads now`) {
			t.Errorf("-v=1 does not say the cache of %s declined: %s", c, r.Stderr)
		}
	}

	r = e.run("cache", "stop", "--context", c1+","+c2)
	if r.ExitCode != 0 || r.TimedOut {
		t.Fatalf("cache stop: %s", r)
	}
	entries, _ = e.status(0, "--context", c1+","+c2)
	for _, en := range entries {
		if en.Status != nil || en.Error != "no cache runs" {
			t.Errorf("after cache stop, context %v: %+v", en.Contexts, en)
		}
	}
}
