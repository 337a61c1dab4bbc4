package main

import (
	"fmt"
	"slices"
)

// The relationship rows (issue 16), measured on the realistic set: the tree
// of Deployment 0 (web, in shop-0: 500 pods with the default 20 Deployments
// of 10,000 pods) and the pods whose owner-root it is.
const treeIndex = 0

// relationshipArgs are the measured commands' arguments, by case id.
func relationshipArgs() map[string][]string {
	root := "deployment/" + realName(treeIndex)
	ns := realNamespace(treeIndex)
	ownerRoot := "owner-root=Deployment/" + realName(treeIndex)
	return map[string][]string{
		"tree":           {"tree", root, "-n", ns},
		"tree-name":      {"tree", root, "-n", ns, "-o", "name"},
		"owner-root":     {"query", "pods", "-n", ns, "--index", ownerRoot, "-o", "name"},
		"owner-root-all": {"query", "pods", "-A", "--index", ownerRoot, "-o", "name"},
	}
}

// relationshipCases are tree and owner-root over the realistic set's
// Deployment treeIndex, whose pods are checked by count: the tree is the
// Deployment, its one ReplicaSet (nothing was rolled since) and its pods.
func (b *bench) relationshipCases() []benchCase {
	replicas := realReplicas(treeIndex, b.realDeployments, b.realPods)
	args := relationshipArgs()
	var cases []benchCase
	for _, c := range []struct {
		id    string
		lines int
	}{
		{"tree", 1 + 2 + replicas}, // header, Deployment, ReplicaSet, pods
		{"tree-name", 2 + replicas},
		{"owner-root", replicas},
		{"owner-root-all", replicas},
	} {
		bc := b.kubectl(c.id, "kubectl informer "+shellJoin(args[c.id]), append([]string{"informer"}, args[c.id]...)...)
		bc.check = expectLines(c.lines)
		cases = append(cases, bc)
	}
	return cases
}

// relationshipGroup is the relationship rows' group of the query table.
func relationshipGroup() (string, []queryRow) {
	args := relationshipArgs()
	row := func(id, note string, baselines ...string) queryRow {
		return queryRow{label: "`kubectl informer " + shellJoin(args[id]) + "`" + note, id: id, baselines: baselines}
	}
	title := fmt.Sprintf("7. relationships: the tree of Deployment %s (500 pods of the 10,000 with the defaults), and its pods by owner-root (realistic set only; target ≤ 0.5 s and ≤ 100 MiB; kubectl-tree, which the Go module proxy does not serve, took 1.06 s for such a tree, measured elsewhere)", realNamespace(treeIndex)+"/"+realName(treeIndex))
	return title, []queryRow{
		row("tree", " (text, READY/STATUS/AGE columns)", "raw-pb"),
		row("tree-name", "", "raw-pb"),
		row("owner-root", " (pods, ReplicaSets and Deployments of one namespace)", "raw-pb"),
		row("owner-root-all", " (every pod of the cluster)", "q2", "raw-pb"),
	}
}

// init puts the relationship group before the start-up rows, the last group.
func init() {
	title, rows := relationshipGroup()
	group := struct {
		title string
		rows  []queryRow
	}{title, rows}
	queryGroups = slices.Insert(queryGroups, len(queryGroups)-1, group)
	shortName["tree"], shortName["tree-name"] = "tree", "tree -o name"
	shortName["owner-root"], shortName["owner-root-all"] = "owner-root", "owner-root -A"
}
