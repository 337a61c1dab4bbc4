package workloads

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// tablesManifest holds, besides what kubectl create makes in
// TestColumnsMatchKubectl, the objects whose columns have states of their
// own: pods that cannot be scheduled, a StatefulSet and a DaemonSet (whose
// pods kwok runs), Services of two types, an Ingress, a claim without a
// provisioner and a volume, a secret, and a pod kept Terminating by a
// finalizer.
const tablesManifest = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck, namespace: tables}
spec:
  replicas: 1
  selector: {matchLabels: {app: stuck}}
  template:
    metadata: {labels: {app: stuck}}
    spec:
      nodeSelector: {no-such-label: "true"}
      containers: [{name: main, image: registry.example.com/stuck:v1}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: tables}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      initContainers: [{name: init, image: registry.example.com/init:v1}]
      containers: [{name: main, image: registry.example.com/db:v1}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: tables}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: main, image: registry.example.com/agent:v1}]
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: tables}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{port: 5432}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: tables}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080, protocol: TCP}, {name: dns, port: 53, protocol: UDP}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: tables}
spec:
  rules:
  - host: shop.example.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: tables}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: tables-pv}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteMany, ReadOnlyMany]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /tmp/tables-pv}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: tables}
stringData: {user: admin, password: hunter2}
---
apiVersion: v1
kind: Pod
metadata: {name: leaving, namespace: tables, finalizers: [example.com/hold]}
spec:
  containers: [{name: main, image: registry.example.com/leaving:v1}]
`

// gadgetsCRD is a custom resource with printer columns of every type, one
// of them wide-only.
const gadgetsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
    additionalPrinterColumns:
    - {name: Color, type: string, jsonPath: .spec.color}
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Ratio, type: number, jsonPath: .spec.ratio}
    - {name: Enabled, type: boolean, jsonPath: .spec.enabled}
    - {name: Built, type: date, jsonPath: .spec.built}
    - {name: Parts, type: string, jsonPath: .spec.parts, priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`

// gadgets are two custom resources of gadgetsCRD.
const gadgets = `
apiVersion: example.com/v1
kind: Gadget
metadata: {name: knob, namespace: tables}
spec: {color: red, size: 3, ratio: 0.5, enabled: true, built: "2020-01-02T03:04:05Z", parts: [a, b]}
---
apiVersion: example.com/v1
kind: Gadget
metadata: {name: lever, namespace: tables}
spec: {color: blue, size: 12, ratio: 2, enabled: false}
`

// TestColumnsMatchKubectl compares `kubectl informer query TYPE` with
// `kubectl get TYPE`, with and without -o wide, for every type whose columns
// the plugin prints as kubectl does and a custom resource with printer
// columns, on objects made by real controllers; then kubectl's table flags
// (-L, --show-labels, --show-kind, --sort-by, --no-headers), several types
// at once and all namespaces.
// Ages and times may differ by the moment between the two commands; every
// other cell must be the same.
func TestColumnsMatchKubectl(t *testing.T) {
	c := framework.Current(t)
	const ns = "tables"
	framework.CreateNamespace(t, c.AdminClient(), ns)

	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=3")
	kubectl(t, "create", "job", "done", "-n", ns, "--image=registry.example.com/job:v1")
	kubectl(t, "create", "cronjob", "nightly", "-n", ns, "--image=registry.example.com/cron:v1", "--schedule=0 0 * * *")
	kubectl(t, "create", "configmap", "settings", "-n", ns, "--from-literal=a=1", "--from-literal=b=2")
	apply(t, tablesManifest)
	apply(t, gadgetsCRD)
	kubectl(t, "wait", "crd/gadgets.example.com", "--for=condition=Established", "--timeout=1m")
	apply(t, gadgets)
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "rollout", "status", "statefulset/db", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "rollout", "status", "daemonset/agent", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "wait", "job/done", "-n", ns, "--for=condition=Complete", "--timeout="+rolloutTimeout.String())
	kubectl(t, "wait", "pod/leaving", "-n", ns, "--for=condition=Ready", "--timeout="+rolloutTimeout.String())
	kubectl(t, "delete", "pod/leaving", "-n", ns, "--wait=false")
	t.Cleanup(func() {
		framework.Run(t, framework.Cmd{Args: []string{"patch", "pod/leaving", "-n", ns, "--type=json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`}})
	})

	namespaced := []string{"pods", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs", "cronjobs",
		"services", "ingresses", "configmaps", "secrets", "persistentvolumeclaims", "events", "gadgets"}
	for _, typ := range namespaced {
		compareOutputs(t, typ, "-n", ns)
		compareOutputs(t, typ, "-n", ns, "-o", "wide")
	}
	for _, typ := range []string{"nodes", "namespaces", "persistentvolumes"} {
		compareOutputs(t, typ)
		compareOutputs(t, typ, "-o", "wide")
	}
	// kubectl's table flags, several types at once, all namespaces.
	compareOutputs(t, "deploy,rs,gadgets", "-n", ns, "--show-labels", "-L", "app,pod-template-hash")
	compareOutputs(t, "pods", "-n", ns, "--sort-by", ".status.podIP", "-L", "app")
	compareOutputs(t, "pods", "-n", ns, "--sort-by", "{.metadata.creationTimestamp}", "--no-headers")
	compareOutputs(t, "gadgets", "-n", ns, "--sort-by", "spec.size", "--show-kind")
	compareOutputs(t, "nodes", "--show-kind", "-L", "topology.kubernetes.io/zone", "-L", "node.kubernetes.io/instance-type")
	compareOutputs(t, "deployments,statefulsets", "-A")
	// Every pod state the manifest set up, as kubectl itself shows it.
	pods := parseTable(kubectl(t, "get", "pods", "-n", ns))
	for _, want := range []string{"Running", "Completed", "Pending", "Terminating"} {
		found := false
		for _, row := range pods {
			found = found || row["STATUS"] == want
		}
		if !found {
			t.Errorf("no pod in %s has STATUS %s in kubectl get pods, so the comparison did not cover it", ns, want)
		}
	}
}

// timeColumns hold ages and times: they may differ between two commands run
// a moment apart.
var timeColumns = map[string]bool{"AGE": true, "LAST SEEN": true, "FIRST SEEN": true, "DURATION": true,
	"LAST SCHEDULE": true, "TIMEADDED": true}

// restartsAgo is the "(5m ago)" part of kubectl's RESTARTS column.
var restartsAgo = regexp.MustCompile(` \(.*ago\)$`)

// compareAttempts is how many times compareOutputs runs the two commands
// before it reports a difference: objects that change on their own (events,
// leases, the status a controller writes) may change between two commands.
const compareAttempts = 5

// compareOutputs runs `kubectl informer query TYPE ARGS` and `kubectl get
// TYPE ARGS` and compares them table by table, row by row and in order, a
// few times over if objects changed between the two commands (events do).
func compareOutputs(t *testing.T, typ string, args ...string) {
	t.Helper()
	compareOutputsOrdered(t, true, typ, args...)
}

// compareOutputsOrdered is compareOutputs; when ordered is false the rows
// may come in another order than kubectl's.
func compareOutputsOrdered(t *testing.T, ordered bool, typ string, args ...string) {
	t.Helper()
	name := strings.Join(append([]string{typ}, args...), " ")
	noHeaders := slices.Contains(args, "--no-headers")
	var diffs []string
	for attempt := 0; attempt < compareAttempts; attempt++ {
		r := framework.Run(t, framework.Cmd{Args: append([]string{"informer", "query", typ}, args...)})
		if r.ExitCode != 0 {
			t.Errorf("query %s: %s", name, r)
			return
		}
		want := kubectl(t, append([]string{"get", typ}, args...)...)
		if diffs = diffOutputs(r.Stdout, want, noHeaders, ordered); len(diffs) == 0 {
			return
		}
		time.Sleep(time.Second)
	}
	t.Errorf("query %s differs from kubectl get %s:\n%s", name, name, strings.Join(diffs, "\n"))
}

// diffOutputs compares two outputs of one or more tables separated by blank
// lines. Without headers, the tables are compared as lines, ages aside.
func diffOutputs(got, want string, noHeaders, ordered bool) []string {
	gotTables, wantTables := strings.Split(got, "\n\n"), strings.Split(want, "\n\n")
	if len(gotTables) != len(wantTables) {
		return []string{fmt.Sprintf("%d tables, want %d:\n%s\nwant\n%s", len(gotTables), len(wantTables), got, want)}
	}
	var diffs []string
	for i := range wantTables {
		if noHeaders {
			g, w := ageless.ReplaceAllString(gotTables[i], "AGE"), ageless.ReplaceAllString(wantTables[i], "AGE")
			if g != w {
				diffs = append(diffs, fmt.Sprintf("table %d =\n%s\nwant\n%s", i+1, gotTables[i], wantTables[i]))
			}
			continue
		}
		diffs = append(diffs, diffTables(parseTable(gotTables[i]), parseTable(wantTables[i]), headers(gotTables[i]), headers(wantTables[i]), ordered)...)
	}
	return diffs
}

// ageless matches the ages a table without headers prints.
var ageless = regexp.MustCompile(`\b[0-9]+[smhdy]([0-9]+[smh])?\b`)

// apply runs kubectl apply on a manifest.
func apply(t *testing.T, manifest string) {
	t.Helper()
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: manifest}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
}

// diffTables lists how got differs from want: headers, rows by key (the
// NAMESPACE and NAME cells, or the NAMESPACE, TYPE, REASON, OBJECT and MESSAGE
// cells of events printed without NAME), their order unless ordered is false,
// and cells.
func diffTables(got, want []map[string]string, gotHeaders, wantHeaders []string, ordered bool) []string {
	var diffs []string
	if strings.Join(gotHeaders, "|") != strings.Join(wantHeaders, "|") {
		return []string{fmt.Sprintf("headers %q, want %q", gotHeaders, wantHeaders)}
	}
	key := func(row map[string]string) string {
		if _, ok := row["NAME"]; ok || !slices.Contains(wantHeaders, "OBJECT") {
			return row["NAMESPACE"] + "/" + row["NAME"]
		}
		return strings.Join([]string{row["NAMESPACE"], row["TYPE"], row["REASON"], row["OBJECT"], row["MESSAGE"]}, "|")
	}
	byKey := func(rows []map[string]string) map[string]map[string]string {
		m := map[string]map[string]string{}
		for _, row := range rows {
			m[key(row)] = row
		}
		return m
	}
	g, w := byKey(got), byKey(want)
	if len(got) != len(want) {
		diffs = append(diffs, fmt.Sprintf("%d rows, want %d", len(got), len(want)))
	} else if ordered {
		for i := range want {
			if key(got[i]) != key(want[i]) {
				diffs = append(diffs, fmt.Sprintf("row %d is %s, want %s (kubectl's order)", i+1, key(got[i]), key(want[i])))
				break
			}
		}
	}
	for n, wrow := range w {
		grow, ok := g[n]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("row %s missing", n))
			continue
		}
		for _, h := range wantHeaders {
			gv, wv := grow[h], wrow[h]
			if h == "RESTARTS" {
				gv, wv = restartsAgo.ReplaceAllString(gv, ""), restartsAgo.ReplaceAllString(wv, "")
			}
			if gv != wv && !(timeColumns[h] && closeAges(gv, wv)) {
				diffs = append(diffs, fmt.Sprintf("row %s column %s = %q, want %q", n, h, gv, wv))
			}
		}
	}
	for n := range g {
		if _, ok := w[n]; !ok {
			diffs = append(diffs, fmt.Sprintf("row %s not in kubectl get", n))
		}
	}
	return diffs
}

// closeAges reports whether two printed ages ("7s", "2m3s", "<unknown>")
// are the same or a few seconds apart, as two commands run a moment apart
// print them.
func closeAges(a, b string) bool {
	da, errA := time.ParseDuration(strings.ReplaceAll(strings.ReplaceAll(a, "d", "h"), "y", "h"))
	db, errB := time.ParseDuration(strings.ReplaceAll(strings.ReplaceAll(b, "d", "h"), "y", "h"))
	if errA != nil || errB != nil {
		return a == b
	}
	diff := da - db
	if diff < 0 {
		diff = -diff
	}
	return diff <= 3*time.Second || (da >= 2*time.Minute && diff <= time.Minute)
}

// columnStart matches a header cell: words separated by single spaces.
var columnStart = regexp.MustCompile(`\S+( \S+)*`)

// headers returns the column names of a table's first line.
func headers(table string) []string {
	first, _, _ := strings.Cut(table, "\n")
	return columnStart.FindAllString(first, -1)
}

// parseTable splits a left-aligned table, as kubectl prints it, into rows of
// cells keyed by header, cutting each line at the columns' start offsets.
func parseTable(table string) []map[string]string {
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return nil
	}
	locs := columnStart.FindAllStringIndex(lines[0], -1)
	names := make([]string, len(locs))
	starts := make([]int, len(locs))
	for i, loc := range locs {
		names[i] = lines[0][loc[0]:loc[1]]
		starts[i] = len([]rune(lines[0][:loc[0]]))
	}
	var rows []map[string]string
	for _, line := range lines[1:] {
		r := []rune(line)
		row := map[string]string{}
		for i, name := range names {
			from, to := starts[i], len(r)
			if i+1 < len(starts) && starts[i+1] < to {
				to = starts[i+1]
			}
			if from < to {
				row[name] = strings.TrimSpace(string(r[from:to]))
			}
		}
		rows = append(rows, row)
	}
	return rows
}
