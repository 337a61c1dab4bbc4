package plugin

import (
	"os"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// pushdownEnv is the environment variable that, set to "off", keeps a
// query's --index selection in the client: every object of the queried types
// is listed, then looked up in its index, as before the API server was asked
// to select.
const pushdownEnv = "KUBECTL_INFORMER_PUSHDOWN"

// pushableSelectors returns the --index selectors that a query answered
// directly may have the API server apply to its lists (see withPushdown), or
// none when the command reads objects they do not select: a relationship
// index (its joins read other objects of the types) or an --indexer index (a
// computed index reports the objects it failed on among every cached one).
// --group-by, --sum, --filter and --sort-by read only the selected objects,
// so they do not prevent it. Node and phase selectors are kept only for
// whole objects, which have those values. KUBECTL_INFORMER_PUSHDOWN=off
// turns it off.
func (o *QueryOptions) pushableSelectors() []index.Selector {
	if len(o.selectors) == 0 {
		return nil
	}
	if v := os.Getenv(pushdownEnv); v == "off" {
		klog.V(1).InfoS("not selecting on the API server", "reason", pushdownEnv+"="+v)
		return nil
	}
	if len(o.Indexers) > 0 {
		klog.V(1).InfoS("not selecting on the API server", "reason", "--indexer indexes read every object")
		return nil
	}
	metadataOnly := map[string]bool{}
	for _, def := range o.indexDefs {
		if def.Relation != index.NoRelation {
			klog.V(1).InfoS("not selecting on the API server", "reason", "relationship index "+def.Name)
			return nil
		}
		metadataOnly[def.Name] = def.MetadataOnly
	}
	var pushable []index.Selector
	for _, sel := range o.selectors {
		if o.config.FullObjects || metadataOnly[sel.Name] {
			pushable = append(pushable, sel)
		}
	}
	return pushable
}

// withPushdown returns cfg with the selectors the API server can express for
// every one of mappings (index.ServerSelection) ANDed to its label and field
// selectors, the user's -l and --field-selector, so that each list holds only
// what they select; it logs at -v=1 what it pushed. The caller still looks
// every selector up in the indexes after sync, which gives the same answer
// as without pushdown.
//
// Only a command's own engine may take them: a warm cache's engines are
// shared by commands with other selectors.
func withPushdown(cfg engine.Config, mappings []*meta.RESTMapping, selectors []index.Selector) engine.Config {
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
		klog.V(1).InfoS("not selecting on the API server", "reason", "no selector the API server can express", "selectors", selectorStrings(selectors))
		return cfg
	}
	cfg.LabelSelector = andSelectors(cfg.LabelSelector, server.Label)
	cfg.FieldSelector = andSelectors(cfg.FieldSelector, server.Field)
	klog.V(1).InfoS("selecting on the API server", "pushed", selectorStrings(pushed),
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

func selectorStrings(selectors []index.Selector) []string {
	out := make([]string, len(selectors))
	for i, s := range selectors {
		out[i] = s.String()
	}
	return out
}
