package columns_test

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
)

// widgetCRD declares one column of each type, one of them wide-only.
const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Ratio, type: number, jsonPath: .status.ratio}
    - {name: Ready, type: boolean, jsonPath: .status.ready}
    - {name: Phase, type: string, jsonPath: .status.phase}
    - {name: Last Sync, type: date, jsonPath: .status.lastSync}
    - {name: Labels, type: string, priority: 1, jsonPath: .metadata.labels}
`

// widgets are two custom resources; the second has no ratio, readiness or labels yet.
const widgets = `
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: small, namespace: default, creationTimestamp: "2026-11-20T12:00:00Z", labels: {tier: web}}
  spec: {replicas: 3}
  status: {ratio: 0.75, ready: true, phase: Running, lastSync: "2026-11-23T11:58:30Z"}
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: new, namespace: default, creationTimestamp: "2026-11-23T11:59:00Z"}
  spec: {replicas: 1}
  status: {phase: Pending, lastSync: "2026-11-23T11:59:30Z"}
`

// printTable writes a table as kubectl does: the visible headers and cells through a tabwriter.
func printTable(table columns.Table, objs []*unstructured.Unstructured, now time.Time, wide bool) {
	w := tabwriter.NewWriter(os.Stdout, 6, 4, 3, ' ', 0)
	fmt.Fprintln(w, strings.Join(table.Headers(wide), "\t"))
	for _, obj := range objs {
		row, err := table.Row(obj, now)
		if err != nil {
			fmt.Fprintln(w, "error:", err)
			continue
		}
		fmt.Fprintln(w, strings.Join(table.Visible(row, wide), "\t"))
	}
	w.Flush()
}

// A custom resource's columns, from its CRD's additionalPrinterColumns.
func ExampleForCustomResource() {
	var crd unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(widgetCRD), &crd.Object); err != nil {
		panic(err)
	}
	var items []map[string]interface{}
	if err := yaml.Unmarshal([]byte(widgets), &items); err != nil {
		panic(err)
	}
	objs := make([]*unstructured.Unstructured, len(items))
	for i := range items {
		objs[i] = &unstructured.Unstructured{Object: items[i]}
	}

	printerColumns, err := columns.PrinterColumnsFromCRD(&crd, "v1")
	if err != nil {
		panic(err)
	}
	table, err := columns.ForCustomResource(printerColumns)
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	printTable(table, objs, now, false)
	fmt.Println()
	printTable(table, objs, now, true)
	// Output:
	// NAME    REPLICAS   RATIO   READY   PHASE     LAST SYNC
	// small   3          0.75    true    Running   90s
	// new     1                          Pending   30s
	//
	// NAME    REPLICAS   RATIO   READY   PHASE     LAST SYNC   LABELS
	// small   3          0.75    true    Running   90s         {"tier":"web"}
	// new     1                          Pending   30s
}

// A built-in resource's columns, looked up by GroupResource.
func ExampleFor() {
	table, ok := columns.For(schema.GroupResource{Resource: "pods"})
	if !ok {
		panic("no table for pods")
	}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", CreationTimestamp: metav1.NewTime(now.Add(-3 * time.Hour))},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}, NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIPs: []corev1.PodIP{{IP: "10.0.0.7"}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, RestartCount: 2,
				State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(now.Add(-7 * time.Minute))}}}}},
	}
	row, err := table.Row(pod, now)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n%q\n", table.Headers(true), row)
	// Output:
	// ["NAME" "READY" "STATUS" "RESTARTS" "AGE" "IP" "NODE" "NOMINATED NODE" "READINESS GATES"]
	// ["web-1" "1/1" "Running" "2 (7m ago)" "3h" "10.0.0.7" "node-1" "<none>" "<none>"]
}
