package columns

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

var flowSchemaTable = Table{
	Columns: columnsOf([]string{"Name", "PriorityLevel", "MatchingPrecedence", "DistinguisherMethod", "Age", "MissingPL"}),
	Row:     typedRow(flowSchemaRow),
	Compare: compareFlowSchemas,
}

// compareFlowSchemas orders FlowSchemas as printers.go's printFlowSchemaList does
// (FlowSchemaSequence): lower matching precedence first, then by name.
func compareFlowSchemas(a, b runtime.Object) int {
	pa, na := flowSchemaOrder(a)
	pb, nb := flowSchemaOrder(b)
	if pa != pb {
		return cmp.Compare(pa, pb)
	}
	return strings.Compare(na, nb)
}

// flowSchemaOrder returns a FlowSchema's matching precedence and name, typed or unstructured.
func flowSchemaOrder(obj runtime.Object) (int64, string) {
	switch o := obj.(type) {
	case *flowcontrolv1.FlowSchema:
		return int64(o.Spec.MatchingPrecedence), o.Name
	case *unstructured.Unstructured:
		p, _, _ := unstructured.NestedInt64(o.Object, "spec", "matchingPrecedence")
		return p, o.GetName()
	}
	return 0, ""
}

// flowSchemaRow is printers.go's printFlowSchema: MISSINGPL is the status of the Dangling
// condition, "?" without one. (The order of the rows is compareFlowSchemas'.)
func flowSchemaRow(fs *flowcontrolv1.FlowSchema, now time.Time) []string {
	distinguisher := "<none>"
	if fs.Spec.DistinguisherMethod != nil {
		distinguisher = string(fs.Spec.DistinguisherMethod.Type)
	}
	missing := "?"
	for _, c := range fs.Status.Conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			missing = string(c.Status)
			break
		}
	}
	return []string{fs.Name, fs.Spec.PriorityLevelConfiguration.Name, int64Cell(fs.Spec.MatchingPrecedence),
		distinguisher, age(fs.CreationTimestamp, now), missing}
}

var priorityLevelConfigurationTable = Table{
	Columns: columnsOf([]string{"Name", "Type", "NominalConcurrencyShares", "Queues", "HandSize", "QueueLengthLimit", "Age"}),
	Row:     typedRow(priorityLevelConfigurationRow),
}

// priorityLevelConfigurationRow is printers.go's printPriorityLevelConfiguration: "<none>" for
// the limits of an exempt level, and for the queuing of a level that rejects.
func priorityLevelConfigurationRow(pl *flowcontrolv1.PriorityLevelConfiguration, now time.Time) []string {
	shares, queues, handSize, queueLength := "<none>", "<none>", "<none>", "<none>"
	if limited := pl.Spec.Limited; limited != nil {
		shares = int64Cell(int32Value(limited.NominalConcurrencyShares))
		if q := limited.LimitResponse.Queuing; q != nil {
			queues, handSize, queueLength = int64Cell(q.Queues), int64Cell(q.HandSize), int64Cell(q.QueueLengthLimit)
		}
	}
	return []string{pl.Name, string(pl.Spec.Type), shares, queues, handSize, queueLength, age(pl.CreationTimestamp, now)}
}

var leaseTable = Table{
	Columns: columnsOf([]string{"Name", "Holder", "Age"}),
	Row: typedRow(func(l *coordinationv1.Lease, now time.Time) []string {
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		return []string{l.Name, holder, age(l.CreationTimestamp, now)}
	}),
}

// storageVersionMigrationTable's NAME has no name format in printers.go: kubectl --show-kind
// writes no kind before it.
var storageVersionMigrationTable = Table{
	Columns: []Column{{Header: "NAME"}, {Header: "RESOURCE"}, {Header: "STATUS"}},
	Row:     typedRow(storageVersionMigrationRow),
}

// storageVersionMigrationRow is printers.go's printStorageVersionMigration: STATUS is the type of
// the last True condition of type Running, Failed or Succeeded, else Unknown.
func storageVersionMigrationRow(m *storagemigrationv1.StorageVersionMigration, _ time.Time) []string {
	status := "Unknown"
	for _, c := range m.Status.Conditions {
		if c.Status != metav1.ConditionTrue {
			continue
		}
		switch storagemigrationv1.MigrationConditionType(c.Type) {
		case storagemigrationv1.MigrationRunning, storagemigrationv1.MigrationFailed, storagemigrationv1.MigrationSucceeded:
			status = c.Type
		}
	}
	return []string{m.Name, m.Spec.Resource.String(), status}
}

// componentStatusTable has no AGE column: component statuses are computed when listed, and have
// no creation time.
var componentStatusTable = Table{
	Columns: columnsOf([]string{"Name", "Status", "Message", "Error"}),
	Row:     typedRow(componentStatusRow),
}

// componentStatusRow is printers.go's printComponentStatus, from the first Healthy condition.
func componentStatusRow(cs *corev1.ComponentStatus, _ time.Time) []string {
	status, message, errText := "Unknown", "", ""
	for _, c := range cs.Conditions {
		if c.Type == corev1.ComponentHealthy {
			status = "Unhealthy"
			if c.Status == corev1.ConditionTrue {
				status = "Healthy"
			}
			message, errText = c.Message, c.Error
			break
		}
	}
	return []string{cs.Name, status, message, errText}
}

// apiServiceTable is the table of kube-aggregator's APIService storage (its ConvertToTable), not
// of printers.go. The package does not link k8s.io/kube-aggregator: its RowFunc reads an
// APIService as unstructured content.
var apiServiceTable = Table{
	Columns: columnsOf([]string{"Name", "Service", "Available", "Age"}),
	Row:     contentRow("APIService", apiServiceRow),
}

// apiService holds the fields of an APIService that its row reads.
type apiService struct {
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Service *struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"service"`
	} `json:"spec"`
	Status struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Reason string `json:"reason"`
		} `json:"conditions"`
	} `json:"status"`
}

// apiServiceRow computes an APIService's row: SERVICE is namespace/name, or Local for an API the
// kube-apiserver serves itself; AVAILABLE is the first Available condition's status, with its
// reason in parentheses when it is not True, or Unknown without the condition.
func apiServiceRow(svc *apiService, now time.Time) []string {
	service := "Local"
	if s := svc.Spec.Service; s != nil {
		service = s.Namespace + "/" + s.Name
	}
	available := "Unknown"
	for _, c := range svc.Status.Conditions {
		if c.Type != "Available" {
			continue
		}
		available = c.Status
		if c.Status != "True" && c.Reason != "" {
			available = fmt.Sprintf("%s (%s)", c.Status, c.Reason)
		}
		break
	}
	return []string{svc.Name, service, available, age(svc.CreationTimestamp, now)}
}

// customResourceDefinitionTable is the table of k8s.io/apiextensions-apiserver's CRD storage
// (pkg/registry/customresourcedefinition/tableconvertor), read as unstructured content: the
// package does not link k8s.io/apiextensions-apiserver.
var customResourceDefinitionTable = Table{
	Columns: columnsOf([]string{"Name", "Scope", "Versions", "Created At", "Group", "Kind", "ShortNames", "Established"},
		"Group", "Kind", "ShortNames", "Established"),
	Row: contentRow("CustomResourceDefinition", customResourceDefinitionRow),
}

// customResourceDefinition holds the fields of a CustomResourceDefinition that its row reads.
type customResourceDefinition struct {
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Kind       string   `json:"kind"`
			ShortNames []string `json:"shortNames"`
		} `json:"names"`
		Versions []struct {
			Name    string `json:"name"`
			Served  bool   `json:"served"`
			Storage bool   `json:"storage"`
		} `json:"versions"`
	} `json:"spec"`
	Status struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
}

// customResourceDefinitionRow computes a CRD's row: VERSIONS lists the served versions, sorted,
// the storage version marked "(storage)"; CREATED AT is the creation time in UTC as RFC 3339;
// the wide ESTABLISHED is whether an Established condition is True.
func customResourceDefinitionRow(crd *customResourceDefinition, _ time.Time) []string {
	var versions []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			label := v.Name
			if v.Storage {
				label += "(storage)"
			}
			versions = append(versions, label)
		}
	}
	slices.Sort(versions)
	established := false
	for _, c := range crd.Status.Conditions {
		if c.Type == "Established" && c.Status == "True" {
			established = true
		}
	}
	return []string{
		crd.Name, crd.Spec.Scope, strings.Join(versions, ","), crd.CreationTimestamp.UTC().Format(time.RFC3339),
		crd.Spec.Group, crd.Spec.Names.Kind, strings.Join(crd.Spec.Names.ShortNames, ","), boolText(established),
	}
}

// contentRow turns a row function over a struct that holds some fields of an object of kind into a
// RowFunc that reads the object as unstructured content: a *unstructured.Unstructured, or a typed
// object, which it converts first.
func contentRow[T any](kind string, row func(obj *T, now time.Time) []string) RowFunc {
	return func(obj runtime.Object, now time.Time) ([]string, error) {
		if _, ok := obj.(*metav1.PartialObjectMetadata); ok {
			return nil, fmt.Errorf("columns for %s: got a %T", kind, obj)
		}
		content, err := object.Content(obj)
		if err != nil {
			return nil, fmt.Errorf("columns for %s: %w", kind, err)
		}
		var fields T
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, &fields); err != nil {
			return nil, fmt.Errorf("reading %s: %w", kind, err)
		}
		return row(&fields, now), nil
	}
}
