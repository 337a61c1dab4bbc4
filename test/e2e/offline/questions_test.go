package offline

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// question is one command, asked of the live cluster and of each dump that
// holds every type its answer depends on.
type question struct {
	name string
	args []string // after `kubectl informer`
	// reads are the types whose objects make the answer (relationship
	// indexes and trees read more than the queried type).
	reads []string
}

var (
	podsOnly      = []string{"pods"}
	podsAndNodes  = []string{"pods", "nodes"}
	podOwners     = []string{"pods", "replicasets.apps", "deployments.apps"}
	allPodOwners  = []string{"pods", "replicasets.apps", "deployments.apps", "statefulsets.apps", "daemonsets.apps", "jobs.batch"}
	widgetsAndCRD = []string{"widgets.example.com", "customresourcedefinitions.apiextensions.k8s.io"}
)

// questions are the commands compared: queries by index, relationship
// indexes, groups and sums, trees, capacity, every output format, -l and
// --field-selector, short names, a custom resource with its CRD's columns,
// and the default namespace.
func questions(f fixture) []question {
	return []question{
		{"pods by node", []string{"query", "pods", "-A", "--index", "node=kwok-node-1"}, podsOnly},
		{"pods by label, wide", []string{"query", "pods", "-A", "--index", "label:app=web", "-o", "wide"}, podsOnly},
		{"running pods by name", []string{"query", "pods", "-A", "--index", "phase=Running", "-o", "name"}, podsOnly},
		{"unscheduled pods", []string{"query", "pods", "-A", "--index", "node="}, podsOnly},
		{"succeeded pods", []string{"query", "pods", "-n", "ops", "--index", "phase=Succeeded", "--show-labels"}, podsOnly},
		{"pods per node", []string{"query", "pods", "-A", "--group-by", "node"}, podsOnly},
		{"pods per workload", []string{"query", "pods", "-A", "--group-by", "owner-root"}, allPodOwners},
		{"pods per workload in shop", []string{"query", "pods", "-n", "shop", "--group-by", "owner-root"}, podOwners},
		{"pods of a deployment", []string{"query", "pods", "-n", "shop", "--index", "owner-root=Deployment/web", "-o", "name"}, podOwners},
		{"replica sets by owner", []string{"query", "rs", "-n", "shop", "--index", "owner=Deployment/web"}, []string{"replicasets.apps"}},
		{"sums per namespace", []string{"query", "pods", "-A", "--group-by", "namespace", "--sum", "requests.cpu", "--sum", "limits.memory"}, podsOnly},
		{"sums per node and phase", []string{"query", "pods", "-A", "--group-by", "node,phase", "--sum", "requests.memory", "--sort-by", "requests.memory"}, podsOnly},
		{"pods per zone", []string{"query", "pods", "-A", "--group-by", "node.label:topology.kubernetes.io/zone"}, podsAndNodes},
		{"pods behind a service", []string{"query", "pods", "-n", "shop", "--index", "selected-by=Service/web", "-o", "name"}, []string{"pods", "services"}},
		{"pods by image, CEL", []string{"query", "pods", "-A", "--filter", "object.spec.containers.exists(c, c.image.endsWith(':1.1'))", "-o", "name"}, podsOnly},
		{"computed index", []string{"query", "pods", "-A", "--indexer", "img={.spec.containers[*].image}", "--group-by", "img"}, podsOnly},
		{"label and field selectors", []string{"query", "pods", "-A", "-l", "tier in (frontend,backend)", "--field-selector", "status.phase=Running,metadata.namespace=shop"}, podsOnly},
		{"field selector on node", []string{"query", "pods", "-A", "--field-selector", "spec.nodeName=kwok-node-2", "-o", "name"}, podsOnly},
		{"pods as json", []string{"query", "pods", "-n", "shop", "--index", "label:app=cart", "-o", "json"}, podsOnly},
		{"deployment as yaml", []string{"query", "deploy", "-n", "shop", "--index", "label:app=cart", "-o", "yaml"}, []string{"deployments.apps"}},
		{"custom columns", []string{"query", "deploy,rs", "-n", "shop", "-o", "custom-columns=NAME:.metadata.name,READY:.status.readyReplicas,IMAGE:.spec.template.spec.containers[0].image"}, []string{"deployments.apps", "replicasets.apps"}},
		{"jsonpath", []string{"query", "pods", "-n", "data", "-o", "jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}{\"\\n\"}{end}"}, podsOnly},
		{"workloads by name", []string{"query", "deploy,ds", "-A", "-o", "name"}, []string{"deployments.apps", "daemonsets.apps"}},
		{"statefulsets and jobs", []string{"query", "sts,jobs", "-A"}, []string{"statefulsets.apps", "jobs.batch"}},
		{"daemon sets", []string{"query", "ds", "-A", "-o", "wide"}, []string{"daemonsets.apps"}},
		{"services", []string{"query", "svc", "-A"}, []string{"services"}},
		{"config maps with labels", []string{"query", "cm", "-n", "shop", "--show-labels"}, []string{"configmaps"}},
		{"nodes with zones", []string{"query", "nodes", "-L", "topology.kubernetes.io/zone"}, []string{"nodes"}},
		{"nodes by label", []string{"query", "no", "-l", "team=blue", "-o", "name"}, []string{"nodes"}},
		{"namespaces", []string{"query", "ns", "--show-labels"}, []string{"namespaces"}},
		{"default namespace", []string{"query", "deploy"}, []string{"deployments.apps"}},
		{"widgets", []string{"query", "widgets", "-A"}, widgetsAndCRD},
		{"widgets by short name and index", []string{"query", "wg", "-A", "--indexer", "color={.spec.color}", "--index", "color=red", "-o", "name"}, widgetsAndCRD},
		{"tree of a deployment", []string{"tree", "deployment/web", "-n", "shop"}, podOwners},
		{"tree by name", []string{"tree", "deploy", "-n", "shop", "-o", "name"}, podOwners},
		{"tree up", []string{"tree", "pod/" + f.cartPod, "-n", "shop", "--up"}, podOwners},
		{"tree of a statefulset", []string{"tree", "statefulset/db", "-n", "data"}, []string{"statefulsets.apps", "controllerrevisions.apps", "pods"}},
		{"tree of a service", []string{"tree", "service/web", "-n", "shop"}, []string{"services", "pods", "endpointslices.discovery.k8s.io"}},
		{"capacity", []string{"capacity"}, podsAndNodes},
		{"capacity per zone", []string{"capacity", "--group-by", "label:topology.kubernetes.io/zone"}, podsAndNodes},
		{"capacity of a namespace as json", []string{"capacity", "-n", "shop", "-o", "json"}, podsAndNodes},
		{"no match", []string{"query", "pods", "-A", "--index", "node=no-such-node"}, podsOnly},
		{"unsupported field selector", []string{"query", "pods", "-A", "--field-selector", "spec.foo=bar"}, podsOnly},
		{"missing tree root", []string{"tree", "deployment/no-such", "-n", "shop"}, podOwners},
	}
}

// printsObjects says whether q's answer is a List of whole objects
// (query -o json or -o yaml).
func (q question) printsObjects() bool {
	for i, a := range q.args {
		if a == "-o" && i+1 < len(q.args) && (q.args[i+1] == "json" || q.args[i+1] == "yaml") {
			return q.args[0] == "query"
		}
	}
	return false
}

// printsAges says whether q's answer is a table of objects or a tree,
// whose ages count from when a dump was taken: a query or tree without
// --group-by or --sum, printed as a table (no -o, or -o wide).
func (q question) printsAges() bool {
	if q.args[0] != "query" && q.args[0] != "tree" {
		return false
	}
	for i, a := range q.args {
		switch {
		case a == "--group-by" || a == "--sum":
			return false
		case a == "-o" && i+1 < len(q.args) && q.args[i+1] != "wide":
			return false
		}
	}
	return true
}

// heldBy says whether d holds every type q reads.
func (q question) heldBy(d dump) bool {
	for _, r := range q.reads {
		if !d.holds[r] {
			return false
		}
	}
	return true
}

// ageHeader finds the AGE column in a table's header line.
var ageHeader = regexp.MustCompile(`(^|\s)AGE(\s|$)`)

// withoutAge returns out with the cells of every table's AGE column
// replaced by "AGE", so that answers taken at different moments compare
// equal. A table starts at a header line that has an AGE column; kubectl
// aligns the cells of a column under its header, so a row's age is the
// text from the header's AGE offset to the next cell. Ages move; the
// columns after AGE are compared as they are.
func withoutAge(out string) string {
	lines := strings.Split(out, "\n")
	at := -1 // the AGE column's offset in the current table, in runes (kubectl aligns runes)
	for i, line := range lines {
		if line == "" {
			at = -1
			continue
		}
		if m := ageHeader.FindStringSubmatchIndex(line); m != nil && (strings.HasPrefix(line, "NAME") || strings.HasPrefix(line, "NAMESPACE")) {
			at = utf8.RuneCountInString(line[:m[3]]) // after the space before AGE
		}
		row := []rune(line)
		if at < 0 || at >= len(row) {
			continue
		}
		end := at
		for end < len(row) && row[end] != ' ' {
			end++
		}
		for end < len(row) && row[end] == ' ' {
			end++
		}
		lines[i] = string(row[:at]) + "AGE"
		if end < len(row) {
			lines[i] += "   " + string(row[end:])
		}
	}
	return strings.Join(lines, "\n")
}
