package engines

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// PushdownEnv is the environment variable that, set to "off", keeps a
// query's --index selection in the client: every object of the queried types
// is listed, then looked up in its index, as before the API server was asked
// to select.
const PushdownEnv = "KUBECTL_INFORMER_PUSHDOWN"

// WithPushdown returns cfg with the selectors the API server can express for
// every one of mappings (index.ServerSelection) ANDed to its label and field
// selectors, the user's -l and --field-selector, so that each list holds only
// what they select; it logs at -v=1 what it pushed. The caller still looks
// every selector up in the indexes after sync, which gives the same answer
// as without pushdown.
//
// Only a command's own engine may take them: a warm cache's engines are
// shared by commands with other selectors.
func WithPushdown(cfg engine.Config, mappings []*meta.RESTMapping, selectors []index.Selector) engine.Config {
	if len(selectors) == 0 || len(mappings) == 0 {
		return cfg
	}
	var common []index.Selector
	for _, sel := range selectors {
		if expressedForAll(mappings, sel) {
			common = append(common, sel)
		}
	}
	server, pushed := index.ServerSelection(mappings[0].Resource.GroupResource(), namespaceField(mappings[0]), common)
	if len(pushed) == 0 {
		klog.V(1).InfoS("not selecting on the API server", "reason", "no selector the API server can express", "selectors", SelectorStrings(selectors))
		return cfg
	}
	cfg.LabelSelector = andSelectors(cfg.LabelSelector, server.Label)
	cfg.FieldSelector = andSelectors(cfg.FieldSelector, server.Field)
	klog.V(1).InfoS("selecting on the API server", "pushed", SelectorStrings(pushed),
		"labelSelector", cfg.LabelSelector, "fieldSelector", cfg.FieldSelector)
	return cfg
}

// expressedForAll reports whether the API server expresses sel, and the same
// way, for every type of mappings: one label and field selector is sent with
// every type's list.
func expressedForAll(mappings []*meta.RESTMapping, sel index.Selector) bool {
	var first index.ServerSelectors
	for i, m := range mappings {
		server, expressed := index.ServerSelection(m.Resource.GroupResource(), namespaceField(m), []index.Selector{sel})
		if len(expressed) != 1 || (i > 0 && server != first) {
			return false
		}
		first = server
	}
	return true
}

// namespaceField reports whether the API server selects the objects of m by
// metadata.namespace: namespaced types built into kube-apiserver (those of
// client-go's scheme) do; an aggregated API server need not.
func namespaceField(m *meta.RESTMapping) bool {
	return m.Scope != nil && m.Scope.Name() == meta.RESTScopeNameNamespace && scheme.Scheme.Recognizes(m.GroupVersionKind)
}

// andSelectors joins two label or two field selectors, either possibly
// empty, into their AND.
func andSelectors(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "," + b
}

func SelectorStrings(selectors []index.Selector) []string {
	out := make([]string, len(selectors))
	for i, s := range selectors {
		out[i] = s.String()
	}
	return out
}
