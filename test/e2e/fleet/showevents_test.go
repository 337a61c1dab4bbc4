package fleet

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// eventYAML is a core/v1 Event about pod name in namespace, of reason and
// message.
func eventYAML(name, pod, uid, reason, message string) string {
	now := time.Now().UTC().Format(time.RFC3339)
	return fmt.Sprintf(`apiVersion: v1
kind: Event
metadata: {name: %s, namespace: %s}
involvedObject: {apiVersion: v1, kind: Pod, name: %s, namespace: %s, uid: %s}
type: Warning
reason: %s
message: %s
source: {component: e2e}
firstTimestamp: %q
lastTimestamp: %q
count: 1
`, name, namespace, pod, namespace, uid, reason, message, now, now)
}

// withoutAgeColumns returns a table's cells (tableCells) with the AGE and
// EVENT AGE columns blanked: they depend on when each table was printed.
func withoutAgeColumns(table string) [][]string {
	cells := tableCells(table)
	if len(cells) == 0 {
		return nil
	}
	var ages []int
	for i, h := range cells[0] {
		if h == "AGE" || h == "EVENT AGE" {
			ages = append(ages, i)
		}
	}
	for _, row := range cells {
		for _, i := range ages {
			if i < len(row) {
				row[i] = ""
			}
		}
	}
	return cells
}

// TestFleetQueryShowEvents gives pod p-1 an Event of its own in each
// context: query --show-events across contexts has each context's
// single-context --show-events rows, the context first, each row's event
// from its own context.
func TestFleetQueryShowEvents(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	var want [][]string
	var header []string
	for _, c := range f.Contexts {
		uid := kubectl(t, c, "get", "pod", "p-1", "-n", namespace, "-o", "jsonpath={.metadata.uid}")
		manifest := eventYAML("p-1.show-events", "p-1", uid, "Seen"+strings.ReplaceAll(c, "-", ""), "in context "+c)
		if r := framework.Run(t, framework.Cmd{Args: []string{"create", "-f", "-", "--context", c}, Kubeconfig: f.Kubeconfig, Stdin: manifest}); r.ExitCode != 0 {
			t.Fatalf("creating the event in %s: %s", c, r)
		}
		r := informer(t, "query", "pods", "-n", namespace, "--show-events", "--context", c)
		if r.ExitCode != 0 {
			t.Fatalf("query --show-events --context %s: %s", c, r)
		}
		cells := withoutAgeColumns(r.Stdout)
		header = append([]string{"CONTEXT"}, cells[0]...)
		if !strings.Contains(r.Stdout, "in context "+c) {
			t.Fatalf("query --show-events --context %s does not show the event made there:\n%s", c, r.Stdout)
		}
		for _, row := range cells[1:] {
			want = append(want, append([]string{c}, row...))
		}
	}
	r := informer(t, "query", "pods", "-n", namespace, "--show-events", "--context", "fleet-*")
	if r.ExitCode != 0 {
		t.Fatalf("query --show-events across contexts: %s", r)
	}
	got := withoutAgeColumns(r.Stdout)
	if !reflect.DeepEqual(got[0], header) {
		t.Errorf("header %q, want %q", got[0], header)
	}
	if !reflect.DeepEqual(got[1:], want) {
		t.Errorf("rows:\n got %q\nwant %q", got[1:], want)
	}
	if !slices.ContainsFunc(got, func(row []string) bool { return slices.Contains(row, "in context "+f.Contexts[2]) }) {
		t.Errorf("no row shows the event of %s:\n%s", f.Contexts[2], r.Stdout)
	}

	r = informer(t, "query", "pods", "-n", namespace, "--show-events", "--context", "fleet-*", "--group-by", "context")
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, "--show-events") {
		t.Errorf("--show-events with --group-by context: want a refusal naming the flag: %s", r)
	}
}
