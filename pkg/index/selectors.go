package index

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// selectedByIndexName is the index name of the selected-by index.
const selectedByIndexName = "selected-by"

const selectedByDescription = "KIND/NAME of each Service, workload, PodDisruptionBudget or NetworkPolicy whose selector selects the pod"

// selectorKinds are the kinds whose objects select pods, with their groups.
var selectorKinds = map[string]schema.GroupKind{
	"Service":             {Kind: "Service"},
	"Deployment":          {Group: "apps", Kind: "Deployment"},
	"ReplicaSet":          {Group: "apps", Kind: "ReplicaSet"},
	"StatefulSet":         {Group: "apps", Kind: "StatefulSet"},
	"DaemonSet":           {Group: "apps", Kind: "DaemonSet"},
	"Job":                 {Group: "batch", Kind: "Job"},
	"PodDisruptionBudget": {Group: "policy", Kind: "PodDisruptionBudget"},
	"NetworkPolicy":       {Group: "networking.k8s.io", Kind: "NetworkPolicy"},
}

// SelectorKinds returns the group and kind of every kind selected-by reads, sorted by kind.
func SelectorKinds() []schema.GroupKind {
	kinds := make([]schema.GroupKind, 0, len(selectorKinds))
	for _, gk := range selectorKinds {
		kinds = append(kinds, gk)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].Kind < kinds[j].Kind })
	return kinds
}

// SelectorKindOf returns the group and kind of a selected-by value, "Service/web", and an
// error naming the kinds it knows when the value is not KIND/NAME of one of them.
func SelectorKindOf(value string) (schema.GroupKind, error) {
	kind, name, ok := strings.Cut(value, "/")
	gk, known := selectorKinds[kind]
	if !ok || name == "" || !known {
		names := make([]string, 0, len(selectorKinds))
		for _, k := range SelectorKinds() {
			names = append(names, k.Kind)
		}
		return schema.GroupKind{}, fmt.Errorf("selected-by needs KIND/NAME with KIND one of %s, got %q", strings.Join(names, ", "), value)
	}
	return gk, nil
}

// SelectingKinds returns the selecting kinds selectors need selected-by to read: those that
// selected-by=KIND/NAME and "selected-by in (...)" selectors name, or every selecting kind
// (SelectorKinds) when a selector on selected-by is not = or in, or none is (--group-by
// selected-by). A value that is not KIND/NAME of a selecting kind is an error that starts with
// the selector.
func SelectingKinds(selectors []Selector) ([]schema.GroupKind, error) {
	seen := map[schema.GroupKind]bool{}
	var kinds []schema.GroupKind
	named := false
	for _, s := range selectors {
		if s.Name != selectedByIndexName {
			continue
		}
		if s.Operator != Equals && s.Operator != In {
			return SelectorKinds(), nil
		}
		named = true
		for _, v := range s.Values {
			gk, err := SelectorKindOf(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s, err)
			}
			if !seen[gk] {
				seen[gk] = true
				kinds = append(kinds, gk)
			}
		}
	}
	if !named {
		return SelectorKinds(), nil
	}
	return kinds, nil
}

// PodSelector is an object that selects pods of its namespace by label.
type PodSelector struct {
	Kind, Namespace, Name string
	Selector              labels.Selector
}

// SelectorOf returns the pod selector of obj, a typed or unstructured object of one of the
// SelectorKinds, following each kind's rules: a Service selects by its spec.selector map, and
// with none selects no pod; workloads and Jobs by spec.selector; a policy/v1
// PodDisruptionBudget by spec.selector, an empty one selecting every pod of the namespace and
// a missing one none; a NetworkPolicy by spec.podSelector, empty selecting every pod. It reports
// false for other objects and for selectors that do not parse.
func SelectorOf(obj interface{}) (PodSelector, bool) {
	obj = Unwrap(obj)
	if u, ok := obj.(*unstructured.Unstructured); ok {
		typed, ok := typedSelectorObject(u)
		if !ok {
			return PodSelector{}, false
		}
		obj = typed
	}
	var (
		kind string
		m    metav1.Object
		sel  labels.Selector = labels.Nothing()
		err  error
	)
	fromLabelSelector := func(ls *metav1.LabelSelector) {
		if ls != nil {
			sel, err = metav1.LabelSelectorAsSelector(ls)
		}
	}
	switch o := obj.(type) {
	case *corev1.Service:
		kind, m = "Service", o
		if len(o.Spec.Selector) > 0 {
			sel = labels.SelectorFromSet(o.Spec.Selector)
		}
	case *appsv1.Deployment:
		kind, m = "Deployment", o
		fromLabelSelector(o.Spec.Selector)
	case *appsv1.ReplicaSet:
		kind, m = "ReplicaSet", o
		fromLabelSelector(o.Spec.Selector)
	case *appsv1.StatefulSet:
		kind, m = "StatefulSet", o
		fromLabelSelector(o.Spec.Selector)
	case *appsv1.DaemonSet:
		kind, m = "DaemonSet", o
		fromLabelSelector(o.Spec.Selector)
	case *batchv1.Job:
		kind, m = "Job", o
		fromLabelSelector(o.Spec.Selector)
	case *policyv1.PodDisruptionBudget:
		kind, m = "PodDisruptionBudget", o
		fromLabelSelector(o.Spec.Selector)
	case *networkingv1.NetworkPolicy:
		kind, m = "NetworkPolicy", o
		fromLabelSelector(&o.Spec.PodSelector)
	default:
		return PodSelector{}, false
	}
	if err != nil {
		return PodSelector{}, false
	}
	return PodSelector{Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName(), Selector: sel}, true
}

// typedSelectorObject converts an unstructured object of a selector kind to its Go type.
func typedSelectorObject(u *unstructured.Unstructured) (interface{}, bool) {
	var typed runtime.Object
	switch u.GetKind() {
	case "Service":
		typed = &corev1.Service{}
	case "Deployment":
		typed = &appsv1.Deployment{}
	case "ReplicaSet":
		typed = &appsv1.ReplicaSet{}
	case "StatefulSet":
		typed = &appsv1.StatefulSet{}
	case "DaemonSet":
		typed = &appsv1.DaemonSet{}
	case "Job":
		typed = &batchv1.Job{}
	case "PodDisruptionBudget":
		typed = &policyv1.PodDisruptionBudget{}
	case "NetworkPolicy":
		typed = &networkingv1.NetworkPolicy{}
	default:
		return nil, false
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		return nil, false
	}
	return typed, true
}

// PodSelectors is what selected-by reads: the pod selectors of a namespace. Implementations
// must be safe for concurrent use.
type PodSelectors interface {
	PodSelectors(namespace string) []PodSelector
}

// SelectedBy returns the selected-by index over selectors: for a pod, "KIND/NAME" of each object of
// its namespace in selectors whose selector selects the pod's labels, e.g. "Service/web" and
// "Deployment/web". Objects other than pods have no value. Like OwnerRoot, the values are
// computed when the pod enters or changes in its cache: register it only once their caches
// have synced. A watch recomputes them for the pods of a namespace whose selectors changed
// (SelectorSet.Set and Delete report it).
func SelectedBy(selectors PodSelectors) Definition {
	return Definition{
		Name:         selectedByIndexName,
		Description:  selectedByDescription,
		MetadataOnly: true,
		Relation:     SelectorRelation,
		Func: func(obj interface{}) ([]string, error) {
			m, err := accessor(obj)
			if err != nil {
				return nil, err
			}
			if selectors == nil || !isPod(Unwrap(obj)) {
				return nil, nil
			}
			var values []string
			set := labels.Set(m.GetLabels())
			for _, s := range selectors.PodSelectors(m.GetNamespace()) {
				if s.Selector.Matches(set) {
					values = appendUnique(values, s.Kind+"/"+s.Name)
				}
			}
			return values, nil
		},
	}
}

// isPod reports whether obj is a core v1 Pod in any of its cached forms.
func isPod(obj interface{}) bool {
	if _, ok := obj.(*corev1.Pod); ok {
		return true
	}
	if o, ok := obj.(runtime.Object); ok {
		gvk := o.GetObjectKind().GroupVersionKind()
		return gvk.Group == "" && gvk.Kind == "Pod"
	}
	return false
}

// selectsIndexName is the index name of the selects index, the reverse of selected-by.
const selectsIndexName = "selects"

const selectsDescription = "Pod/NAME of each pod a Service, workload, PodDisruptionBudget or NetworkPolicy selects"

// Pods is what the selects index reads: the cached pods of a namespace, typed,
// unstructured or metadata-only. Implementations must be safe for concurrent use.
type Pods interface {
	Pods(namespace string) []interface{}
}

// PodIndexer is a Pods over informers' indexers of pods (one per namespace cached), each with
// client-go's namespace index (cache.NamespaceIndex), as every informer of the engine has.
type PodIndexer struct{ Indexers []cache.Indexer }

// Pods implements Pods.
func (p PodIndexer) Pods(namespace string) []interface{} {
	var pods []interface{}
	for _, indexer := range p.Indexers {
		objs, err := indexer.ByIndex(cache.NamespaceIndex, namespace)
		if err == nil {
			pods = append(pods, objs...)
		}
	}
	return pods
}

// Selects returns the selects index over pods: for an object of a selector kind (see
// SelectorOf), "Pod/NAME" of each pod of its namespace in pods that its selector selects, e.g.
// `query svc,pdb,netpol --index selects=Pod/web-5d9c7-x2x4z`. Other objects have no value. Like
// SelectedBy, the values are computed when the object enters or changes in its cache; a pod
// created later is not added to them.
func Selects(pods Pods) Definition {
	return Definition{
		Name:        selectsIndexName,
		Description: selectsDescription,
		Relation:    PodRelation,
		Func: func(obj interface{}) ([]string, error) {
			if _, err := accessor(obj); err != nil {
				return nil, err
			}
			sel, ok := SelectorOf(obj)
			if !ok || pods == nil {
				return nil, nil
			}
			var values []string
			for _, pod := range pods.Pods(sel.Namespace) {
				m, err := accessor(pod)
				if err == nil && sel.Selector.Matches(labels.Set(m.GetLabels())) {
					values = append(values, "Pod/"+m.GetName())
				}
			}
			return values, nil
		},
	}
}
