package fleet

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// tableCells splits a table's lines (header included) into cells: columns
// are separated by two spaces or more, as cells such as "1/110 (0%)" hold
// single spaces.
func tableCells(out string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var cells []string
		for _, c := range strings.Split(line, "  ") {
			if c = strings.TrimSpace(c); c != "" {
				cells = append(cells, c)
			}
		}
		rows = append(rows, cells)
	}
	return rows
}

// TestFleetCapacity checks capacity across contexts against capacity in
// each context: the per-node rows are each context's rows with the context
// first, --group-by context has a row per context equal to that context's
// TOTAL (and its node count), and the fleet's TOTAL counts every bound pod
// against every node's pod allocatable, from kubectl get -o json.
func TestFleetCapacity(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	var wantRows, wantByContext [][]string
	boundPods, podAllocatable := 0, 0
	for _, c := range f.Contexts {
		r := informer(t, "capacity", "--context", c)
		if r.ExitCode != 0 {
			t.Fatalf("capacity --context %s: %s", c, r)
		}
		cells := tableCells(r.Stdout)
		for _, row := range cells[1 : len(cells)-1] {
			wantRows = append(wantRows, append([]string{c}, row...))
		}
		nodes := strings.Fields(kubectl(t, c, "get", "nodes", "-o", "name"))
		total := cells[len(cells)-1]
		wantByContext = append(wantByContext, append([]string{c, fmt.Sprint(len(nodes))}, total[1:]...))

		var pods struct {
			Items []struct {
				Spec struct {
					NodeName string `json:"nodeName"`
				} `json:"spec"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(kubectl(t, c, "get", "pods", "-A", "-o", "json")), &pods); err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				boundPods++
			}
		}
		podAllocatable += 110 * len(nodes) // nodeYAML
	}

	r := informer(t, "capacity", "--context", "fleet-*")
	if r.ExitCode != 0 {
		t.Fatalf("capacity across contexts: %s", r)
	}
	cells := tableCells(r.Stdout)
	if got, want := cells[0][:2], []string{"CONTEXT", "NODE"}; !reflect.DeepEqual(got, want) {
		t.Errorf("header starts %q, want %q", got, want)
	}
	if got := cells[1 : len(cells)-1]; !reflect.DeepEqual(got, wantRows) {
		t.Errorf("rows:\n got %q\nwant %q", got, wantRows)
	}
	if total, want := cells[len(cells)-1], fmt.Sprintf("%d/%d", boundPods, podAllocatable); total[0] != "TOTAL" || !strings.HasPrefix(total[1], want+" ") {
		t.Errorf("TOTAL row %q, want pods %s", total, want)
	}

	r = informer(t, "capacity", "--context", "fleet-*,"+f.Dead, "--group-by", "context")
	if r.ExitCode != 1 || strings.Count(r.Stderr, "error: context "+f.Dead+": ") != 1 {
		t.Errorf("with the dead context: want it named once and exit 1: %s", r)
	}
	cells = tableCells(r.Stdout)
	if got := cells[1 : len(cells)-1]; !reflect.DeepEqual(got, wantByContext) {
		t.Errorf("--group-by context:\n got %q\nwant %q", got, wantByContext)
	}
}
