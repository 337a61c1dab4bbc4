package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-informer/kubectl-informer/pkg/mcp"
)

// noNode is the node of a pod not scheduled, in both servers' tables.
const noNode = "<none>"

// mcpTruth is the answer to each of the mcp step's questions, computed by
// the bench from its own LIST of the cluster, to check the servers' answers
// against.
type mcpTruth struct {
	pods int
	// perNode counts the pods bound to each node; the pods not scheduled
	// are counted under <none>, as kubectl prints their node.
	perNode map[string]int
	// notRunning counts, per namespace, the pods whose phase is not Running.
	notRunning map[string]int
	// unused are the ConfigMaps (NAMESPACE/NAME) that no pod and no pod
	// template of a Deployment or ReplicaSet refers to.
	unused     map[string]bool
	configMaps int
	// deploymentPods are the names of the pods the Deployment owns through
	// its ReplicaSets.
	deploymentPods map[string]bool
}

// newMCPTruth answers the questions from lists of the cluster's pods,
// ConfigMaps, Deployments and ReplicaSets; deployment is the NAMESPACE/NAME
// of the Deployment whose pods are asked for.
func newMCPTruth(pods []corev1.Pod, cms []corev1.ConfigMap, deps []appsv1.Deployment, rss []appsv1.ReplicaSet, deployment string) mcpTruth {
	t := mcpTruth{pods: len(pods), perNode: map[string]int{}, notRunning: map[string]int{},
		unused: map[string]bool{}, configMaps: len(cms), deploymentPods: map[string]bool{}}
	used := map[string]bool{}
	use := func(namespace string, spec *corev1.PodSpec) {
		for _, name := range podSpecConfigMaps(spec) {
			used[namespace+"/"+name] = true
		}
	}
	for _, d := range deps {
		use(d.Namespace, &d.Spec.Template.Spec)
	}
	owned := map[string]bool{} // NAMESPACE/NAME of the Deployment's ReplicaSets
	for _, rs := range rss {
		use(rs.Namespace, &rs.Spec.Template.Spec)
		for _, o := range rs.OwnerReferences {
			if o.Kind == "Deployment" && rs.Namespace+"/"+o.Name == deployment {
				owned[rs.Namespace+"/"+rs.Name] = true
			}
		}
	}
	for i := range pods {
		p := &pods[i]
		use(p.Namespace, &p.Spec)
		if p.Spec.NodeName != "" {
			t.perNode[p.Spec.NodeName]++
		} else {
			t.perNode[noNode]++
		}
		if p.Status.Phase != corev1.PodRunning {
			t.notRunning[p.Namespace]++
		}
		for _, o := range p.OwnerReferences {
			if o.Kind == "ReplicaSet" && owned[p.Namespace+"/"+o.Name] {
				t.deploymentPods[p.Name] = true
			}
		}
	}
	for _, cm := range cms {
		if key := cm.Namespace + "/" + cm.Name; !used[key] {
			t.unused[key] = true
		}
	}
	return t
}

// podSpecConfigMaps are the names of the ConfigMaps a pod spec refers to:
// through its volumes (projected ones too) and its containers' env and
// envFrom, init and ephemeral containers included.
func podSpecConfigMaps(spec *corev1.PodSpec) []string {
	var names []string
	for _, v := range spec.Volumes {
		if v.ConfigMap != nil {
			names = append(names, v.ConfigMap.Name)
		}
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					names = append(names, s.ConfigMap.Name)
				}
			}
		}
	}
	env := func(envFrom []corev1.EnvFromSource, env []corev1.EnvVar) {
		for _, e := range envFrom {
			if e.ConfigMapRef != nil {
				names = append(names, e.ConfigMapRef.Name)
			}
		}
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				names = append(names, e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	}
	for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
		env(c.EnvFrom, c.Env)
	}
	for _, c := range spec.EphemeralContainers {
		env(c.EnvFrom, c.Env)
	}
	return names
}

// queryOutput decodes the structured content of the query tool's result.
func queryOutput(structured any) (mcp.QueryOutput, error) {
	var out mcp.QueryOutput
	raw, err := json.Marshal(structured)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("decoding the query tool's structured content: %w", err)
	}
	return out, nil
}

// oneTable is the single context's table of a query answer, nil when
// nothing matched; an error for a failed context, several contexts or
// tables, or an answer cut to the budget (which would be partial).
func oneTable(out mcp.QueryOutput) (*mcp.Table, error) {
	if out.Cut != nil {
		return nil, fmt.Errorf("the answer was cut: %d of %d", out.Cut.Returned, out.Cut.Total)
	}
	if len(out.Contexts) != 1 {
		return nil, fmt.Errorf("%d contexts answered, want 1", len(out.Contexts))
	}
	a := out.Contexts[0]
	if a.Error != "" {
		return nil, fmt.Errorf("context %s: %s", a.Context, a.Error)
	}
	switch len(a.Tables) {
	case 0:
		return nil, nil
	case 1:
		t := a.Tables[0]
		if t.TotalRows != len(t.Rows) {
			return nil, fmt.Errorf("%d of %d rows returned", len(t.Rows), t.TotalRows)
		}
		return &t, nil
	}
	return nil, fmt.Errorf("%d tables, want 1", len(a.Tables))
}

// checkGroupCounts checks a group-by answer of one index (a GROUP and a
// COUNT column) against want.
func checkGroupCounts(out mcp.QueryOutput, want map[string]int) error {
	t, err := oneTable(out)
	if err != nil {
		return err
	}
	got := map[string]int{}
	if t != nil {
		if len(t.Header) != 2 || t.Header[1] != "COUNT" {
			return fmt.Errorf("header %v, want [GROUP COUNT]", t.Header)
		}
		for _, r := range t.Rows {
			var n int
			if len(r) != 2 {
				return fmt.Errorf("row %v: want 2 cells", r)
			}
			if _, err := fmt.Sscanf(r[1], "%d", &n); err != nil {
				return fmt.Errorf("row %v: count: %w", r, err)
			}
			got[r[0]] += n
		}
	}
	if err := compareCounts(got, want); err != nil {
		return fmt.Errorf("wrong answer: %w", err)
	}
	return nil
}

// checkNames checks that the column column of an answer's table holds
// exactly want, each once; with namespaced, a key is NAMESPACE/NAME from
// the NAMESPACE column and the NAME column.
func checkNames(out mcp.QueryOutput, want map[string]bool, namespaced bool) error {
	t, err := oneTable(out)
	if err != nil {
		return err
	}
	got := map[string]int{}
	if t != nil {
		name, ns := slices.Index(t.Header, "NAME"), slices.Index(t.Header, "NAMESPACE")
		if name < 0 || namespaced && ns < 0 {
			return fmt.Errorf("header %v has no NAME or NAMESPACE column", t.Header)
		}
		for _, r := range t.Rows {
			key := r[name]
			if namespaced {
				key = r[ns] + "/" + key
			}
			got[key]++
		}
	}
	if err := compareCounts(got, boolCounts(want)); err != nil {
		return fmt.Errorf("wrong answer: %w", err)
	}
	return nil
}

func boolCounts(set map[string]bool) map[string]int {
	out := make(map[string]int, len(set))
	for k := range set {
		out[k] = 1
	}
	return out
}

// compareCounts names the first few keys whose counts differ, as
// "KEY: GOT, want WANT".
func compareCounts(got, want map[string]int) error {
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(mergeKeys(got, want))) {
		if got[k] != want[k] {
			diffs = append(diffs, fmt.Sprintf("%s: %d, want %d", k, got[k], want[k]))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("and %d more", len(diffs)-5))
	}
	return errors.New(strings.Join(diffs, "; "))
}

func mergeKeys(a, b map[string]int) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// textTable is a table as kubectl prints it (and kubernetes-mcp-server's
// list tools return it): a header line, then a line per row, each column
// starting where its header starts. Cells hold no spaces; headers may
// ("NOMINATED NODE"), and are told apart by the two or more spaces
// between columns.
type textTable struct {
	header []string
	rows   [][]string
}

// parseTextTable reads text as a textTable; empty text is an empty table.
func parseTextTable(text string) textTable {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" {
		return textTable{}
	}
	head := lines[0]
	var starts []int
	for i := 0; i < len(head); i++ {
		if head[i] != ' ' && (i == 0 || i >= 2 && head[i-1] == ' ' && head[i-2] == ' ') {
			starts = append(starts, i)
		}
	}
	cut := func(line string) []string {
		cells := make([]string, len(starts))
		for j, s := range starts {
			end := len(line)
			if j+1 < len(starts) {
				end = min(end, starts[j+1])
			}
			if s < end {
				cells[j] = strings.TrimSpace(line[s:end])
			}
		}
		return cells
	}
	t := textTable{header: cut(head)}
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) != "" {
			t.rows = append(t.rows, cut(l))
		}
	}
	return t
}

// count is how many rows have each value of the column named column, or
// an error when the table has no such column.
func (t textTable) count(column string) (map[string]int, error) {
	c := slices.Index(t.header, column)
	if c < 0 {
		return nil, fmt.Errorf("no column %s in %v", column, t.header)
	}
	out := map[string]int{}
	for _, r := range t.rows {
		out[r[c]]++
	}
	return out, nil
}
