package offline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// resource is a type as a must-gather names it: its group ("core" for the
// core group) and plural resource name.
type resource struct {
	group, plural string
}

// name is the resource as kubectl and the questions name it:
// "pods", "deployments.apps".
func (r resource) name() string {
	if r.group == "core" {
		return r.plural
	}
	return r.plural + "." + r.group
}

// namespacedResources and clusterResources are the types every full dump
// holds.
var (
	namespacedResources = []resource{
		{"core", "pods"}, {"apps", "replicasets"}, {"apps", "deployments"}, {"apps", "statefulsets"},
		{"apps", "daemonsets"}, {"apps", "controllerrevisions"}, {"batch", "jobs"}, {"core", "services"},
		{"discovery.k8s.io", "endpointslices"}, {"core", "configmaps"}, {"example.com", "widgets"},
	}
	clusterResources = []resource{
		{"core", "nodes"}, {"core", "namespaces"}, {"apiextensions.k8s.io", "customresourcedefinitions"},
	}
)

// allResources are the names of namespacedResources and clusterResources.
func allResources() []string {
	var names []string
	for _, r := range append(append([]resource(nil), namespacedResources...), clusterResources...) {
		names = append(names, r.name())
	}
	return names
}

// clusterInfoResources are the types `kubectl cluster-info dump` writes
// (k8s.io/kubectl/pkg/cmd/clusterinfo/clusterinfo_dump.go).
var clusterInfoResources = []string{
	"nodes", "pods", "replicasets.apps", "deployments.apps", "services", "daemonsets.apps",
	"replicationcontrollers", "events",
}

// dump is one way of dumping the cluster: the --from paths it gives and
// the types it holds.
type dump struct {
	name  string
	from  []string
	holds map[string]bool
	// typedDir is, for a dump written through kubectl's compiled-in types
	// (see typed_test.go), the cluster-info dump directory that holds the
	// same objects.
	typedDir string
	// stamped is the time of a must-gather's timestamp file: the instant
	// its ages count from.
	stamped time.Time
}

func (d dump) fromArgs() []string {
	var args []string
	for _, p := range d.from {
		args = append(args, "--from", p)
	}
	return args
}

func holding(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// writeFile writes data to path, creating its directory.
func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// takeDumps dumps the cluster into dir the ways users do and returns the
// dumps:
//
//   - yaml, json: `kubectl get TYPES -A -o yaml|json > FILE`, one List of
//     every object of every type;
//   - cluster-info: `kubectl cluster-info dump -A --output-directory D`
//     (nodes.json and NS/TYPE.json Lists, and pod logs as text);
//   - cluster-info-stdout: `kubectl cluster-info dump -A > FILE`, the same
//     Lists one after another with the pod logs between them;
//   - must-gather: namespaces/NS/GROUP/RESOURCE.yaml and
//     cluster-scoped-resources/GROUP/RESOURCE.yaml, each written by
//     `kubectl get RESOURCE [-n NS] -o yaml` (core is "core"), with each
//     pod of shop again in namespaces/shop/pods/POD/POD.yaml, a timestamp
//     file (the moment its files are written) and container logs, as
//     must-gathers have them;
//   - multi-doc: two files, one a multi-document YAML of the pods of each
//     namespace (a List per document, written by `kubectl get pods -n NS -o
//     yaml`), the other `kubectl get nodes -o yaml`.
func takeDumps(t *testing.T, dir string) []dump {
	t.Helper()
	types := strings.Join(allResources(), ",")
	yamlPath, jsonPath := filepath.Join(dir, "dump.yaml"), filepath.Join(dir, "dump.json")
	writeFile(t, yamlPath, kubectl(t, "get", types, "-A", "-o", "yaml"))
	writeFile(t, jsonPath, kubectl(t, "get", types, "-A", "-o", "json"))

	clusterInfo := filepath.Join(dir, "cluster-info")
	kubectl(t, "cluster-info", "dump", "-A", "--output-directory", clusterInfo)
	if logs, _ := filepath.Glob(filepath.Join(clusterInfo, "shop", "web-*", "logs.txt")); len(logs) == 0 {
		t.Fatalf("kubectl cluster-info dump wrote no shop/web-*/logs.txt: the dump is not what the test expects")
	}
	clusterInfoStdout := filepath.Join(dir, "cluster-info-dump.txt")
	stdout := kubectl(t, "cluster-info", "dump", "-A")
	if !strings.Contains(stdout, "==== START logs for container web of pod shop/web-") {
		t.Fatalf("kubectl cluster-info dump printed no logs of shop's web pods: the dump is not what the test expects")
	}
	writeFile(t, clusterInfoStdout, stdout)

	mustGather := filepath.Join(dir, "must-gather")
	namespaces := strings.Fields(kubectl(t, "get", "namespaces", "-o", "jsonpath={.items[*].metadata.name}"))
	for _, ns := range namespaces {
		for _, r := range namespacedResources {
			writeFile(t, filepath.Join(mustGather, "namespaces", ns, r.group, r.plural+".yaml"),
				kubectl(t, "get", r.name(), "-n", ns, "-o", "yaml"))
		}
	}
	for _, r := range clusterResources {
		writeFile(t, filepath.Join(mustGather, "cluster-scoped-resources", r.group, r.plural+".yaml"),
			kubectl(t, "get", r.name(), "-o", "yaml"))
	}
	// Must-gathers also hold each pod of some namespaces in a file of its
	// own (namespaces/NS/pods/POD/POD.yaml): the same objects twice.
	for _, pod := range strings.Fields(kubectl(t, "get", "pods", "-n", "shop", "-o", "jsonpath={.items[*].metadata.name}")) {
		writeFile(t, filepath.Join(mustGather, "namespaces", "shop", "pods", pod, pod+".yaml"), kubectl(t, "get", "pod", pod, "-n", "shop", "-o", "yaml"))
	}
	// The timestamp file says when the gathering ended, as must-gather's
	// does: Go's time.Time String form.
	stamped := time.Now().UTC()
	writeFile(t, filepath.Join(mustGather, "timestamp"), stamped.String()+" m=+0.000000001\n")
	writeFile(t, filepath.Join(mustGather, "namespaces", "shop", "pods", "web", "web", "web", "logs", "current.log"),
		"2026-11-26T01:00:00.000000000Z listening on :8080\n")

	multi := filepath.Join(dir, "multi")
	var pods strings.Builder
	for _, ns := range namespaces {
		pods.WriteString("---\n")
		pods.WriteString(kubectl(t, "get", "pods", "-n", ns, "-o", "yaml"))
	}
	podsPath, nodesPath := filepath.Join(multi, "pods.yaml"), filepath.Join(multi, "nodes.yaml")
	writeFile(t, podsPath, pods.String())
	writeFile(t, nodesPath, kubectl(t, "get", "nodes", "-o", "yaml"))

	all := holding(allResources())
	return []dump{
		{name: "yaml", from: []string{yamlPath}, holds: all},
		{name: "json", from: []string{jsonPath}, holds: all},
		{name: "cluster-info", from: []string{clusterInfo}, holds: holding(clusterInfoResources), typedDir: clusterInfo},
		{name: "cluster-info-stdout", from: []string{clusterInfoStdout}, holds: holding(clusterInfoResources), typedDir: clusterInfo},
		{name: "must-gather", from: []string{mustGather}, holds: all, stamped: stamped},
		{name: "multi-doc", from: []string{podsPath, nodesPath}, holds: holding([]string{"pods", "nodes"})},
	}
}
