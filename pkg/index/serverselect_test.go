package index

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	podsResource        = schema.GroupResource{Resource: "pods"}
	deploymentsResource = schema.GroupResource{Group: "apps", Resource: "deployments"}
	nodesResource       = schema.GroupResource{Resource: "nodes"}
)

func mustSelectors(t *testing.T, in ...string) []Selector {
	t.Helper()
	var sels []Selector
	for _, s := range in {
		sel, err := ParseSelector("--index", s)
		if err != nil {
			t.Fatal(err)
		}
		sels = append(sels, sel)
	}
	return sels
}

func selectorStrings(sels []Selector) []string {
	var out []string
	for _, s := range sels {
		out = append(out, s.String())
	}
	return out
}

func TestServerSelection(t *testing.T) {
	tests := []struct {
		name           string
		resource       schema.GroupResource
		namespaceField bool
		selectors      []string
		want           ServerSelectors
		expressed      []string // selectors expressed, as written; nil when none
	}{
		{name: "node", resource: podsResource, namespaceField: true, selectors: []string{"node=node-003"},
			want: ServerSelectors{Field: "spec.nodeName=node-003"}, expressed: []string{"node=node-003"}},
		{name: "node empty selects unscheduled pods", resource: podsResource, namespaceField: true, selectors: []string{"node="},
			want: ServerSelectors{Field: "spec.nodeName="}, expressed: []string{"node="}},
		{name: "node not equals empty selects scheduled pods", resource: podsResource, namespaceField: true, selectors: []string{"node!="},
			want: ServerSelectors{Field: "spec.nodeName!="}, expressed: []string{"node!="}},
		{name: "node not equals", resource: podsResource, namespaceField: true, selectors: []string{"node!=node-003"},
			want: ServerSelectors{Field: "spec.nodeName!=node-003"}, expressed: []string{"node!=node-003"}},
		{name: "node in one value", resource: podsResource, namespaceField: true, selectors: []string{"node in (node-003)"},
			want: ServerSelectors{Field: "spec.nodeName=node-003"}, expressed: []string{"node in (node-003)"}},
		{name: "node in () is the empty value", resource: podsResource, namespaceField: true, selectors: []string{"node in ()"},
			want: ServerSelectors{Field: "spec.nodeName="}, expressed: []string{"node in ()"}},
		{name: "node in two values is not expressed", resource: podsResource, namespaceField: true, selectors: []string{"node in (a,b)"}},
		{name: "node notin as one != per value", resource: podsResource, namespaceField: true, selectors: []string{"node notin (,a)"},
			want: ServerSelectors{Field: "spec.nodeName!=,spec.nodeName!=a"}, expressed: []string{"node notin (,a)"}},
		{name: "node exists selects every pod: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"node"}},
		{name: "node does not exist: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"!node"}},
		{name: "node value with comma and equals is escaped", resource: podsResource, namespaceField: true, selectors: []string{`node=a,b=c\d`},
			want: ServerSelectors{Field: `spec.nodeName=a\,b\=c\\d`}, expressed: []string{`node=a,b=c\d`}},
		{name: "node on deployments is not expressed", resource: deploymentsResource, namespaceField: true, selectors: []string{"node=node-003"}},
		{name: "node on a custom resource named pods is not expressed", resource: schema.GroupResource{Group: "example.com", Resource: "pods"}, namespaceField: true,
			selectors: []string{"node=node-003"}},

		{name: "phase", resource: podsResource, namespaceField: true, selectors: []string{"phase=Pending"},
			want: ServerSelectors{Field: "status.phase=Pending"}, expressed: []string{"phase=Pending"}},
		{name: "phase not equals", resource: podsResource, namespaceField: true, selectors: []string{"phase!=Running"},
			want: ServerSelectors{Field: "status.phase!=Running"}, expressed: []string{"phase!=Running"}},
		{name: "phase empty is no value: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"phase="}},
		{name: "phase not equals empty: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"phase!="}},
		{name: "phase notin", resource: podsResource, namespaceField: true, selectors: []string{"phase notin (Failed,Succeeded)"},
			want: ServerSelectors{Field: "status.phase!=Failed,status.phase!=Succeeded"}, expressed: []string{"phase notin (Failed,Succeeded)"}},
		{name: "phase notin with the empty value: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"phase notin (,Failed)"}},
		{name: "phase in two values: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"phase in (Pending,Running)"}},
		{name: "phase exists is a non-empty phase", resource: podsResource, namespaceField: true, selectors: []string{"phase"},
			want: ServerSelectors{Field: "status.phase!="}, expressed: []string{"phase"}},
		{name: "phase does not exist is an empty phase", resource: podsResource, namespaceField: true, selectors: []string{"!phase"},
			want: ServerSelectors{Field: "status.phase="}, expressed: []string{"!phase"}},
		{name: "phase on namespaces is not expressed", resource: schema.GroupResource{Resource: "namespaces"}, selectors: []string{"phase=Active"}},

		{name: "namespace", resource: deploymentsResource, namespaceField: true, selectors: []string{"namespace=shop"},
			want: ServerSelectors{Field: "metadata.namespace=shop"}, expressed: []string{"namespace=shop"}},
		{name: "namespace not equals", resource: podsResource, namespaceField: true, selectors: []string{"namespace!=kube-system"},
			want: ServerSelectors{Field: "metadata.namespace!=kube-system"}, expressed: []string{"namespace!=kube-system"}},
		{name: "namespace notin", resource: podsResource, namespaceField: true, selectors: []string{"namespace notin (a,b)"},
			want: ServerSelectors{Field: "metadata.namespace!=a,metadata.namespace!=b"}, expressed: []string{"namespace notin (a,b)"}},
		{name: "namespace in two values: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"namespace in (a,b)"}},
		{name: "namespace empty: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"namespace="}},
		{name: "namespace exists: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"namespace"}},
		{name: "namespace the server may not select (cluster-scoped, aggregated): not expressed", resource: nodesResource, selectors: []string{"namespace=shop"}},

		{name: "label", resource: podsResource, namespaceField: true, selectors: []string{"label:app=web"},
			want: ServerSelectors{Label: "app=web"}, expressed: []string{"label:app=web"}},
		{name: "label on a cluster-scoped type", resource: nodesResource, selectors: []string{"label:topology.kubernetes.io/zone=a"},
			want: ServerSelectors{Label: "topology.kubernetes.io/zone=a"}, expressed: []string{"label:topology.kubernetes.io/zone=a"}},
		{name: "label empty value", resource: podsResource, namespaceField: true, selectors: []string{"label:app="},
			want: ServerSelectors{Label: "app="}, expressed: []string{"label:app="}},
		{name: "label not equals", resource: podsResource, namespaceField: true, selectors: []string{"label:app!=web"},
			want: ServerSelectors{Label: "app!=web"}, expressed: []string{"label:app!=web"}},
		{name: "label in", resource: podsResource, namespaceField: true, selectors: []string{"label:app in (web,db)"},
			want: ServerSelectors{Label: "app in (db,web)"}, expressed: []string{"label:app in (db,web)"}},
		{name: "label in with the empty value", resource: podsResource, namespaceField: true, selectors: []string{"label:app in (,web)"},
			want: ServerSelectors{Label: "app in (,web)"}, expressed: []string{"label:app in (,web)"}},
		{name: "label notin", resource: podsResource, namespaceField: true, selectors: []string{"label:app notin (web)"},
			want: ServerSelectors{Label: "app notin (web)"}, expressed: []string{"label:app notin (web)"}},
		{name: "label exists", resource: podsResource, namespaceField: true, selectors: []string{"label:app"},
			want: ServerSelectors{Label: "app"}, expressed: []string{"label:app"}},
		{name: "label does not exist", resource: podsResource, namespaceField: true, selectors: []string{"!label:app"},
			want: ServerSelectors{Label: "!app"}, expressed: []string{"!label:app"}},
		{name: "label value that is not a label value: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"label:app=a b"}},
		{name: "label in with an invalid value: not expressed", resource: podsResource, namespaceField: true, selectors: []string{"label:app in (web,-x)"}},

		{name: "not expressible indexes", resource: podsResource, namespaceField: true,
			selectors: []string{"annotation:example.com/team=payments", "owner=ReplicaSet/web", "owner-uid=u", "image=nginx:1.27", "img=x"}},
		{name: "several selectors, ANDed", resource: podsResource, namespaceField: true,
			selectors: []string{"node=node-003", "phase=Running", "label:app=web", "image=nginx:1.27", "label:tier notin (db)", "namespace=shop", "node in (a,b)"},
			want:      ServerSelectors{Label: "app=web,tier notin (db)", Field: "spec.nodeName=node-003,status.phase=Running,metadata.namespace=shop"},
			expressed: []string{"node=node-003", "phase=Running", "label:app=web", "label:tier notin (db)", "namespace=shop"}},
		{name: "no selectors", resource: podsResource, namespaceField: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, expressed := ServerSelection(tt.resource, tt.namespaceField, mustSelectors(t, tt.selectors...))
			if got != tt.want {
				t.Errorf("ServerSelection(%s, %q) = %+v, want %+v", tt.resource, tt.selectors, got, tt.want)
			}
			if !reflect.DeepEqual(selectorStrings(expressed), tt.expressed) {
				t.Errorf("ServerSelection(%s, %q) expressed %q, want %q", tt.resource, tt.selectors, selectorStrings(expressed), tt.expressed)
			}
			if got.Label != "" {
				if _, err := labels.Parse(got.Label); err != nil {
					t.Errorf("label selector %q does not parse: %v", got.Label, err)
				}
			}
			if got.Field != "" {
				if _, err := fields.ParseSelector(got.Field); err != nil {
					t.Errorf("field selector %q does not parse: %v", got.Field, err)
				}
			}
		})
	}
}

// podFields is the subset of the API server's pod field set
// (ToSelectableFields in k8s.io/kubernetes/pkg/registry/core/pod/strategy.go) that
// ServerSelection uses.
func podFields(p *corev1.Pod) fields.Set {
	return fields.Set{
		"metadata.name":      p.Name,
		"metadata.namespace": p.Namespace,
		"spec.nodeName":      p.Spec.NodeName,
		"status.phase":       string(p.Status.Phase),
	}
}

// TestServerSelectionAgreesWithIndexes checks, on pods in every state the indexes tell apart, that
// the server's selection of what ServerSelection expresses is exactly what the index selectors
// select.
func TestServerSelectionAgreesWithIndexes(t *testing.T) {
	pod := func(ns, name, node string, phase corev1.PodPhase, lbls map[string]string) *corev1.Pod {
		return &corev1.Pod{
			TypeMeta:   typeMeta("v1", "Pod"),
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
			Spec:       corev1.PodSpec{NodeName: node},
			Status:     corev1.PodStatus{Phase: phase},
		}
	}
	pods := []*corev1.Pod{
		pod("shop", "scheduled", "node-003", corev1.PodRunning, map[string]string{"app": "web", "tier": "front"}),
		pod("shop", "other-node", "node-004", corev1.PodSucceeded, map[string]string{"app": "db"}),
		pod("shop", "unscheduled", "", corev1.PodPending, map[string]string{"app": ""}),
		pod("team", "no-phase", "node-003", "", nil),
		pod("team-a", "unlabelled", "", corev1.PodFailed, map[string]string{"tier": "db"}),
	}
	set, err := NewSet()
	if err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"node=node-003"}, {"node="}, {"node!="}, {"node!=node-003"}, {"node in ()"}, {"node notin (,node-004)"},
		{"phase=Running"}, {"phase!=Running"}, {"phase"}, {"!phase"}, {"phase notin (Failed,Pending)"}, {"phase in (Pending)"},
		{"namespace=shop"}, {"namespace!=shop"}, {"namespace notin (shop,team)"},
		{"label:app=web"}, {"label:app="}, {"label:app!=web"}, {"label:app in (,db)"}, {"label:app notin (web)"}, {"label:app"}, {"!label:app"},
		{"node=", "label:tier=db", "namespace!=shop"}, {"node=node-003", "phase!=Running"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c, " "), func(t *testing.T) {
			selectors := mustSelectors(t, c...)
			server, expressed := ServerSelection(podsResource, true, selectors)
			if len(expressed) != len(selectors) {
				t.Fatalf("ServerSelection(%q) expressed %q, want all", c, selectorStrings(expressed))
			}
			labelSel, err := labels.Parse(server.Label)
			if err != nil {
				t.Fatal(err)
			}
			fieldSel, err := fields.ParseSelector(server.Field)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pods {
				byIndex := true
				for _, sel := range selectors {
					def, err := set.Lookup(sel.Name)
					if err != nil {
						t.Fatal(err)
					}
					byIndex = byIndex && sel.Matches(Values(def, p))
				}
				byServer := labelSel.Matches(labels.Set(p.Labels)) && fieldSel.Matches(podFields(p))
				if byServer != byIndex {
					t.Errorf("pod %s/%s: selected by the server (%+v) = %v, by the indexes = %v", p.Namespace, p.Name, server, byServer, byIndex)
				}
			}
		})
	}
}

// ExampleServerSelection shows what a query's selectors become on a pods list.
func ExampleServerSelection() {
	var selectors []Selector
	for _, s := range []string{"node=node-003", "label:app in (web,db)", "image=nginx:1.27"} {
		sel, _ := ParseSelector("--index", s)
		selectors = append(selectors, sel)
	}
	server, expressed := ServerSelection(schema.GroupResource{Resource: "pods"}, true, selectors)
	fmt.Printf("label selector %q, field selector %q, expressed %d of %d\n", server.Label, server.Field, len(expressed), len(selectors))
	// Output: label selector "app in (db,web)", field selector "spec.nodeName=node-003", expressed 2 of 3
}
