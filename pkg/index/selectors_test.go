package index

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

func TestSelectedBy(t *testing.T) {
	om := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: "shop", Name: name} }
	webDeploy := &appsv1.Deployment{ObjectMeta: om("web"), Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&corev1.Service{ObjectMeta: om("web"), Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web", "tier": "front"}}})
	if err != nil {
		t.Fatal(err)
	}
	webService := &unstructured.Unstructured{Object: content}
	webService.SetKind("Service")
	webService.SetAPIVersion("v1")
	objs := []interface{}{
		webDeploy,
		webService,
		&corev1.Service{ObjectMeta: om("external")}, // no selector: selects nothing
		&policyv1.PodDisruptionBudget{ObjectMeta: om("all"), Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{}}},
		&policyv1.PodDisruptionBudget{ObjectMeta: om("none")},
		&networkingv1.NetworkPolicy{ObjectMeta: om("deny-db"), Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"db"}}},
		}}},
		&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "all"}},
		&corev1.ConfigMap{ObjectMeta: om("not-a-selector")},
	}
	def := SelectedBy(NewSelectorSet(objs))
	pod := func(ns, name string, l map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: l}}
	}
	meta := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "m", Labels: map[string]string{"app": "db"}}}
	tests := []struct {
		name string
		obj  interface{}
		want []string
	}{
		{"web front pod", pod("shop", "a", map[string]string{"app": "web", "tier": "front"}), []string{"Deployment/web", "Service/web", "PodDisruptionBudget/all"}},
		{"web pod without tier", pod("shop", "b", map[string]string{"app": "web"}), []string{"Deployment/web", "PodDisruptionBudget/all"}},
		{"metadata-only db pod", meta, []string{"PodDisruptionBudget/all", "NetworkPolicy/deny-db"}},
		{"tombstone", cache.DeletedFinalStateUnknown{Obj: pod("shop", "c", nil)}, []string{"PodDisruptionBudget/all"}},
		{"other namespace", pod("other", "d", map[string]string{"app": "web"}), []string{"NetworkPolicy/all"}},
		{"not a pod", webDeploy, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := def.Func(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sorted(got), sorted(tt.want)) {
				t.Errorf("selected-by(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

func TestSelectorKindOf(t *testing.T) {
	for _, tt := range []struct {
		value, want string
		ok          bool
	}{
		{"Service/web", "Service", true},
		{"PodDisruptionBudget/x", "PodDisruptionBudget.policy", true},
		{"ConfigMap/x", "", false},
		{"Service", "", false},
		{"Service/", "", false},
	} {
		gk, err := SelectorKindOf(tt.value)
		if (err == nil) != tt.ok || (tt.ok && gk.String() != tt.want) {
			t.Errorf("SelectorKindOf(%q) = %v, %v; want %q, ok %v", tt.value, gk, err, tt.want, tt.ok)
		}
	}
}

func TestSelects(t *testing.T) {
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, p := range []*metav1.PartialObjectMetadata{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", Labels: map[string]string{"app": "web"}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db-1", Labels: map[string]string{"app": "db"}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "web-2", Labels: map[string]string{"app": "web"}}},
	} {
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	def := Bind(Selects(nil), Relations{Pods: PodIndexer{Indexers: []cache.Indexer{pods}}})
	om := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: "shop", Name: name} }
	tests := []struct {
		name string
		obj  interface{}
		want []string
	}{
		{"service", &corev1.Service{ObjectMeta: om("web"), Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}}}, []string{"Pod/web-1"}},
		{"service without selector", &corev1.Service{ObjectMeta: om("ext")}, nil},
		{"empty pdb", &policyv1.PodDisruptionBudget{ObjectMeta: om("all"), Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{}}}, []string{"Pod/db-1", "Pod/web-1"}},
		{"not a selector", &corev1.ConfigMap{ObjectMeta: om("cm")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Values(def, tt.obj); !slices.Equal(sorted(got), sorted(tt.want)) {
				t.Errorf("selects(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
	if got := Values(Selects(nil), &corev1.Service{ObjectMeta: om("web"), Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}}}); got != nil {
		t.Errorf("unbound selects = %q, want none", got)
	}
}

func TestSelectingKinds(t *testing.T) {
	parse := func(s string) Selector {
		t.Helper()
		sel, err := ParseSelector("--index", s)
		if err != nil {
			t.Fatal(err)
		}
		return sel
	}
	all := SelectorKinds()
	for _, tt := range []struct {
		name      string
		selectors []Selector
		want      []schema.GroupKind
	}{
		{"none", nil, all},
		{"named", []Selector{parse("selected-by in (Service/web,Deployment/web,Service/api)")}, []schema.GroupKind{{Group: "apps", Kind: "Deployment"}, {Kind: "Service"}}},
		{"negated", []Selector{parse("selected-by=Service/web"), parse("selected-by!=Job/x")}, all},
		{"other index", []Selector{parse("app=web")}, all},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SelectingKinds(tt.selectors)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("SelectingKinds() = %v, %v, want %v", got, err, tt.want)
			}
		})
	}
	if _, err := SelectingKinds([]Selector{parse("selected-by=Widget/w")}); err == nil || !strings.HasPrefix(err.Error(), "selected-by=Widget/w: ") {
		t.Errorf("SelectingKinds(selected-by=Widget/w) = %v, want an error starting with the selector", err)
	}
}
