package columns

import (
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const flowControlGroup = "flowcontrol.apiserver.k8s.io"

func TestFlowSchemaRow(t *testing.T) {
	fs := func(distinguisher *flowcontrolv1.FlowDistinguisherMethod, conditions ...flowcontrolv1.FlowSchemaCondition) *flowcontrolv1.FlowSchema {
		return &flowcontrolv1.FlowSchema{ObjectMeta: objMeta("probes"), Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "exempt"},
			MatchingPrecedence:         2, DistinguisherMethod: distinguisher},
			Status: flowcontrolv1.FlowSchemaStatus{Conditions: conditions}}
	}
	runRows(t, schema.GroupResource{Group: flowControlGroup, Resource: "flowschemas"}, []rowCase{
		{
			// No distinguisher: "<none>"; MISSINGPL the Dangling condition's status.
			name: "dangling false",
			obj:  fs(nil, flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionFalse}),
			want: []string{"probes", "exempt", "2", "<none>", "5m", "False"},
		},
		{
			// No Dangling condition yet: "?".
			name: "no condition",
			obj:  fs(&flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType}),
			want: []string{"probes", "exempt", "2", "ByUser", "5m", "?"},
		},
	})
}

func TestPriorityLevelConfigurationRow(t *testing.T) {
	runRows(t, schema.GroupResource{Group: flowControlGroup, Resource: "prioritylevelconfigurations"}, []rowCase{
		{
			// Exempt: no limits, every number "<none>".
			name: "exempt",
			obj: &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: objMeta("exempt"),
				Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt}},
			want: []string{"exempt", "Exempt", "<none>", "<none>", "<none>", "<none>", "5m"},
		},
		{
			// Limited and rejecting: shares, no queuing.
			name: "limited reject",
			obj: &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: objMeta("catch-all"),
				Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
					Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr[int32](5),
						LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}},
			want: []string{"catch-all", "Limited", "5", "<none>", "<none>", "<none>", "5m"},
		},
		{
			name: "limited queue",
			obj: &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: objMeta("global-default"),
				Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
					Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr[int32](20),
						LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
							Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 128, HandSize: 6, QueueLengthLimit: 50}}}}},
			want: []string{"global-default", "Limited", "20", "128", "6", "50", "5m"},
		},
	})
}

func TestLeaseRow(t *testing.T) {
	runRows(t, schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, []rowCase{
		{name: "held", obj: &coordinationv1.Lease{ObjectMeta: objMeta("kube-scheduler"),
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("host_1234")}}, want: []string{"kube-scheduler", "host_1234", "5m"}},
		{name: "free", obj: &coordinationv1.Lease{ObjectMeta: objMeta("kube-scheduler")}, want: []string{"kube-scheduler", "", "5m"}},
	})
}

func TestStorageVersionMigrationRow(t *testing.T) {
	svm := func(conditions ...metav1.Condition) *storagemigrationv1.StorageVersionMigration {
		return &storagemigrationv1.StorageVersionMigration{ObjectMeta: objMeta("m"),
			Spec:   storagemigrationv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: "apps", Resource: "deployments"}},
			Status: storagemigrationv1.StorageVersionMigrationStatus{Conditions: conditions}}
	}
	runRows(t, schema.GroupResource{Group: "storagemigration.k8s.io", Resource: "storageversionmigrations"}, []rowCase{
		{name: "no condition", obj: svm(), want: []string{"m", "deployments.apps", "Unknown"}},
		{
			// The last True condition of a known type wins; False ones do not count.
			name: "succeeded",
			obj: svm(metav1Condition(string(storagemigrationv1.MigrationRunning)), metav1Condition(string(storagemigrationv1.MigrationSucceeded)),
				metav1.Condition{Type: string(storagemigrationv1.MigrationFailed), Status: metav1.ConditionFalse}),
			want: []string{"m", "deployments.apps", "Succeeded"},
		},
	})
}

func TestComponentStatusRow(t *testing.T) {
	runRows(t, schema.GroupResource{Resource: "componentstatuses"}, []rowCase{
		{name: "healthy", obj: &corev1.ComponentStatus{ObjectMeta: metav1.ObjectMeta{Name: "etcd-0"},
			Conditions: []corev1.ComponentCondition{{Type: corev1.ComponentHealthy, Status: corev1.ConditionTrue, Message: "ok"}}},
			want: []string{"etcd-0", "Healthy", "ok", ""}},
		{name: "unhealthy", obj: &corev1.ComponentStatus{ObjectMeta: metav1.ObjectMeta{Name: "scheduler"},
			Conditions: []corev1.ComponentCondition{{Type: corev1.ComponentHealthy, Status: corev1.ConditionFalse, Message: "refused", Error: "dial"}}},
			want: []string{"scheduler", "Unhealthy", "refused", "dial"}},
		{name: "unknown", obj: &corev1.ComponentStatus{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, want: []string{"x", "Unknown", "", ""}},
	})
}

func TestAPIServiceRow(t *testing.T) {
	apiService := func(spec map[string]interface{}, conditions ...interface{}) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]interface{}{"name": "v1beta1.metrics.k8s.io", "creationTimestamp": ago(5 * time.Minute).UTC().Format(time.RFC3339)},
			"spec":     spec,
			"status":   map[string]interface{}{"conditions": conditions},
		}}
	}
	condition := func(status, reason string) map[string]interface{} {
		return map[string]interface{}{"type": "Available", "status": status, "reason": reason}
	}
	runRows(t, schema.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}, []rowCase{
		{
			// No service: Local; an available service prints True without its reason.
			name: "local",
			obj:  apiService(map[string]interface{}{"group": "metrics.k8s.io"}, condition("True", "Passed")),
			want: []string{"v1beta1.metrics.k8s.io", "Local", "True", "5m"},
		},
		{
			// Not available: status and reason.
			name: "unavailable service",
			obj: apiService(map[string]interface{}{"service": map[string]interface{}{"namespace": "kube-system", "name": "metrics-server"}},
				condition("False", "MissingEndpoints")),
			want: []string{"v1beta1.metrics.k8s.io", "kube-system/metrics-server", "False (MissingEndpoints)", "5m"},
		},
		{
			name: "no condition",
			obj:  apiService(map[string]interface{}{}),
			want: []string{"v1beta1.metrics.k8s.io", "Local", "Unknown", "5m"},
		},
	})
}

func TestCustomResourceDefinitionRow(t *testing.T) {
	crd := func(shortNames []interface{}, established string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]interface{}{"name": "widgets.example.com", "creationTimestamp": "2026-11-23T11:55:00Z"},
			"spec": map[string]interface{}{
				"group": "example.com", "scope": "Namespaced",
				"names": map[string]interface{}{"kind": "Widget", "plural": "widgets", "shortNames": shortNames},
				"versions": []interface{}{
					map[string]interface{}{"name": "v2", "served": true, "storage": true},
					map[string]interface{}{"name": "v1alpha1", "served": false, "storage": false},
					map[string]interface{}{"name": "v1", "served": true, "storage": false},
				},
			},
			"status": map[string]interface{}{"conditions": []interface{}{
				map[string]interface{}{"type": "NamesAccepted", "status": "True"},
				map[string]interface{}{"type": "Established", "status": established},
			}},
		}}
	}
	runRows(t, schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, []rowCase{
		{
			// VERSIONS: the served ones, sorted, the storage one marked; CREATED AT in UTC.
			name: "established",
			obj:  crd([]interface{}{"wd", "wdg"}, "True"),
			want: []string{"widgets.example.com", "Namespaced", "v1,v2(storage)", "2026-11-23T11:55:00Z", "example.com", "Widget", "wd,wdg", "true"},
		},
		{
			name: "not established",
			obj:  crd(nil, "False"),
			want: []string{"widgets.example.com", "Namespaced", "v1,v2(storage)", "2026-11-23T11:55:00Z", "example.com", "Widget", "", "false"},
		},
	})
}

func TestMetadataTable(t *testing.T) {
	created := metav1.ObjectMeta{Name: "reader", Namespace: "web",
		CreationTimestamp: metav1.NewTime(time.Date(2026, 11, 23, 13, 0, 0, 0, time.FixedZone("CET", 3600)))}
	// NAME and CREATED AT, the time in UTC as RFC 3339, from any object with metadata.
	runRows(t, schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "roles"}, []rowCase{
		{name: "role", obj: &rbacv1.Role{ObjectMeta: created}, want: []string{"reader", "2026-11-23T12:00:00Z"}},
	})
	for _, gr := range []schema.GroupResource{
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
		{Resource: "limitranges"},
		{Group: "storage.k8s.io", Resource: "csistoragecapacities"},
	} {
		table, _ := For(gr)
		if got := table.Headers(true); !slices.Equal(got, []string{"NAME", "CREATED AT"}) {
			t.Errorf("For(%v).Headers(true) = %q, want NAME, CREATED AT", gr, got)
		}
		got, err := table.Row(&metav1.PartialObjectMetadata{ObjectMeta: created}, now)
		if want := []string{"reader", "2026-11-23T12:00:00Z"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("For(%v).Row(metadata) = %q, %v, want %q", gr, got, err, want)
		}
	}
}

// TestFlowSchemaOrder sorts FlowSchemas as printers.go's FlowSchemaSequence does: by matching
// precedence, then by name, typed and unstructured alike.
func TestFlowSchemaOrder(t *testing.T) {
	fs := func(name string, precedence int32) *flowcontrolv1.FlowSchema {
		return &flowcontrolv1.FlowSchema{ObjectMeta: objMeta(name), Spec: flowcontrolv1.FlowSchemaSpec{MatchingPrecedence: precedence}}
	}
	unstr := func(name string, precedence int64) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]interface{}{"spec": map[string]interface{}{"matchingPrecedence": precedence}}}
		u.SetName(name)
		return u
	}
	tests := []struct {
		name string
		objs []runtime.Object
		want []string
	}{
		{
			name: "typed",
			objs: []runtime.Object{fs("workload-low", 9000), fs("exempt", 1), fs("probes", 2), fs("catch-all", 10000), fs("system-leader-election", 100), fs("endpoint-controller", 150), fs("workload-leader-election", 200), fs("a-tie", 200)},
			want: []string{"exempt", "probes", "system-leader-election", "endpoint-controller", "a-tie", "workload-leader-election", "workload-low", "catch-all"},
		},
		{
			name: "unstructured",
			objs: []runtime.Object{unstr("global-default", 9900), unstr("exempt", 1), unstr("b", 500), unstr("a", 500)},
			want: []string{"exempt", "a", "b", "global-default"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := slices.Clone(tt.objs)
			slices.SortStableFunc(objs, flowSchemaTable.Compare)
			var got []string
			for _, o := range objs {
				_, name := flowSchemaOrder(o)
				got = append(got, name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("order = %q, want %q", got, tt.want)
			}
		})
	}
}
