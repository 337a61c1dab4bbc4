package query

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

// TestRowPrinterPrintsAsKubectlGetWatch checks the rows query -w prints
// off a terminal against what kubectl get -w prints for the same changes:
// the table, then one row per change under it, aligned with it by the tab
// writer's remembered widths (a wider cell widens what follows), the header
// not repeated; deleted objects too; --output-watch-events puts the event
// first; -o name and json print the objects.
func TestRowPrinterPrintsAsKubectlGetWatch(t *testing.T) {
	created := metav1.NewTime(time.Now().Add(-time.Hour))
	pod := func(name string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, CreationTimestamp: created},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}},
			Status:     corev1.PodStatus{Phase: phase},
		}
	}
	changes := []struct {
		typ engine.EventType
		obj *corev1.Pod
	}{
		{engine.Added, pod("web-1", corev1.PodRunning)},
		{engine.Added, pod("web-2", corev1.PodPending)},
		// after the table:
		{engine.Modified, pod("web-2", corev1.PodRunning)},
		{engine.Added, pod("web-with-a-long-name", corev1.PodPending)},
		{engine.Deleted, pod("web-1", corev1.PodRunning)},
	}
	tests := []struct {
		name   string
		output string
		events bool
		want   string
	}{
		{"table", "", false, `NAME    READY   STATUS    RESTARTS   AGE
web-1   0/1     Running   0          60m
web-2   0/1     Pending   0          60m
web-2   0/1     Running   0          60m
web-with-a-long-name   0/1     Pending   0          60m
web-1                  0/1     Running   0          60m
`},
		{"--output-watch-events", "", true, `EVENT      NAME    READY   STATUS    RESTARTS   AGE
ADDED      web-1   0/1     Running   0          60m
ADDED      web-2   0/1     Pending   0          60m
MODIFIED   web-2   0/1     Running   0          60m
ADDED      web-with-a-long-name   0/1     Pending   0          60m
DELETED    web-1                  0/1     Running   0          60m
`},
		{"-o name", "name", false, "pod/web-1\npod/web-2\npod/web-2\npod/web-with-a-long-name\npod/web-1\n"},
		{"-o json --output-watch-events", "json", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := printing.ParseOutput(tt.output)
			if err != nil {
				t.Fatal(err)
			}
			o := &QueryOptions{}
			o.OutputWatchEvents = tt.events
			w := &running{o: o, cfg: queryPrintConfig{out: out, namespaces: []string{"shop"}}}
			var buf bytes.Buffer
			s := newWatchOutput(&buf, []string{""}, false, false, false)
			p := &rowPrinter{w: w, s: s, tables: map[*engine.Type]columns.Table{}, now: time.Now()}
			types := &engine.Type{Mapping: &meta.RESTMapping{
				Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
				GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
				Scope:            meta.RESTScopeNamespace,
			}}
			for i, c := range changes {
				if err := p.print(context.Background(), types, c.typ, c.obj); err != nil {
					t.Fatalf("print: %v", err)
				}
				// The table is flushed once, then each row.
				if i >= 1 {
					if err := s.flush(); err != nil {
						t.Fatal(err)
					}
				}
			}
			got := buf.String()
			if tt.want != "" {
				if got != tt.want {
					t.Errorf("printed\n%s\nwant\n%s", got, tt.want)
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) != len(changes) {
				t.Fatalf("printed %d lines, want one watch event per change:\n%s", len(lines), got)
			}
			for i, line := range lines {
				prefix := fmt.Sprintf(`{"type":%q,"object":{"apiVersion":"v1","kind":"Pod",`, changes[i].typ)
				if !strings.HasPrefix(line, prefix) || !strings.Contains(line, `"name":"`+changes[i].obj.Name+`"`) {
					t.Errorf("line %d = %s, want a watch event %s… of %s", i, line, prefix, changes[i].obj.Name)
				}
			}
		})
	}
}
