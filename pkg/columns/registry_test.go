package columns

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestResources(t *testing.T) {
	got := Resources()
	var names []string
	for _, gr := range got {
		names = append(names, gr.String())
	}
	// Every resource kube-apiserver v1.37 lists with its default API groups, and no other.
	want := []string{
		"componentstatuses", "configmaps", "endpoints", "events", "limitranges", "namespaces", "nodes",
		"persistentvolumeclaims", "persistentvolumes", "pods", "podtemplates", "replicationcontrollers",
		"resourcequotas", "secrets", "serviceaccounts", "services",
		"mutatingadmissionpolicies.admissionregistration.k8s.io",
		"mutatingadmissionpolicybindings.admissionregistration.k8s.io",
		"mutatingwebhookconfigurations.admissionregistration.k8s.io",
		"validatingadmissionpolicies.admissionregistration.k8s.io",
		"validatingadmissionpolicybindings.admissionregistration.k8s.io",
		"validatingwebhookconfigurations.admissionregistration.k8s.io",
		"customresourcedefinitions.apiextensions.k8s.io",
		"apiservices.apiregistration.k8s.io",
		"controllerrevisions.apps", "daemonsets.apps", "deployments.apps", "replicasets.apps", "statefulsets.apps",
		"horizontalpodautoscalers.autoscaling",
		"cronjobs.batch", "jobs.batch",
		"certificatesigningrequests.certificates.k8s.io", "clustertrustbundles.certificates.k8s.io",
		"podcertificaterequests.certificates.k8s.io",
		"leases.coordination.k8s.io",
		"endpointslices.discovery.k8s.io",
		"events.events.k8s.io",
		"flowschemas.flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io",
		"ingressclasses.networking.k8s.io", "ingresses.networking.k8s.io", "ipaddresses.networking.k8s.io",
		"networkpolicies.networking.k8s.io", "servicecidrs.networking.k8s.io",
		"runtimeclasses.node.k8s.io",
		"poddisruptionbudgets.policy",
		"clusterrolebindings.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io",
		"rolebindings.rbac.authorization.k8s.io", "roles.rbac.authorization.k8s.io",
		"deviceclasses.resource.k8s.io", "devicetaintrules.resource.k8s.io", "resourceclaims.resource.k8s.io",
		"resourceclaimtemplates.resource.k8s.io", "resourceslices.resource.k8s.io",
		"priorityclasses.scheduling.k8s.io",
		"csidrivers.storage.k8s.io", "csinodes.storage.k8s.io", "csistoragecapacities.storage.k8s.io",
		"storageclasses.storage.k8s.io", "volumeattachments.storage.k8s.io", "volumeattributesclasses.storage.k8s.io",
		"storageversionmigrations.storagemigration.k8s.io",
	}
	if !slices.Equal(names, want) {
		t.Errorf("Resources() = %q, want %q", names, want)
	}
	for _, gr := range got {
		table, ok := For(gr)
		if !ok {
			t.Errorf("For(%v) = _, false, want a table", gr)
			continue
		}
		// Every table has exactly one name column; only events put it last and wide, and
		// storage version migrations' NAME has no name format in printers.go.
		var name []int
		for i, c := range table.Columns {
			if c.Format == FormatName {
				name = append(name, i)
			}
			if c.Header != strings.ToUpper(c.Header) {
				t.Errorf("For(%v) column %q is not upper case", gr, c.Header)
			}
		}
		wantName := []int{0}
		switch gr.Resource {
		case "events":
			wantName = []int{len(table.Columns) - 1}
		case "storageversionmigrations":
			wantName = nil
		}
		if !slices.Equal(name, wantName) {
			t.Errorf("For(%v) name columns at %v, want %v", gr, name, wantName)
		}
	}
	if _, ok := For(schema.GroupResource{Group: "example.com", Resource: "widgets"}); ok {
		t.Errorf("For(widgets.example.com) = _, true, want false")
	}
}

func TestTableHeadersVisible(t *testing.T) {
	table, _ := For(schema.GroupResource{Group: "apps", Resource: "deployments"})
	tests := []struct {
		wide        bool
		wantHeaders []string
		wantCells   []string
	}{
		{false, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"}, []string{"a", "b", "c", "d", "e"}},
		{true, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"},
			[]string{"a", "b", "c", "d", "e", "f", "g", "h"}},
	}
	// One cell too many: dropped, as kubectl drops cells beyond the columns.
	row := []string{"a", "b", "c", "d", "e", "f", "g", "h", "extra"}
	for _, tt := range tests {
		if got := table.Headers(tt.wide); !slices.Equal(got, tt.wantHeaders) {
			t.Errorf("Headers(%v) = %q, want %q", tt.wide, got, tt.wantHeaders)
		}
		if got := table.Visible(row, tt.wide); !slices.Equal(got, tt.wantCells) {
			t.Errorf("Visible(%v) = %q, want %q", tt.wide, got, tt.wantCells)
		}
	}
}

func TestRowWrongObject(t *testing.T) {
	pods, _ := For(schema.GroupResource{Resource: "pods"})
	tests := []struct {
		name string
		obj  runtime.Object
	}{
		{name: "another type", obj: &appsv1.Deployment{ObjectMeta: objMeta("web")}},
		{name: "metadata only", obj: &metav1.PartialObjectMetadata{ObjectMeta: objMeta("web")}},
		{name: "unstructured of the wrong shape", obj: &unstructured.Unstructured{Object: map[string]interface{}{
			"kind": "Pod", "metadata": map[string]interface{}{"name": "web"}, "spec": "not an object"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := pods.Row(tt.obj, now); err == nil {
				t.Errorf("pods Row(%T) = %q, nil, want an error", tt.obj, got)
			}
		})
	}
}
