package index

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// Prefixes of the node join index families: "node.label:topology.kubernetes.io/zone".
const (
	nodeLabelPrefix      = "node.label:"
	nodeAnnotationPrefix = "node.annotation:"
)

// NodeRelation marks a Definition that reads the cached node of a pod (node.label:KEY,
// node.annotation:KEY). Set.Lookup returns it unbound; Bind binds it to a NodeGraph.
const NodeRelation Relation = SelectorRelation + 1

// NodeGraph is what the node join indexes read: the cached metadata of a node by name, nil when
// it is not cached. Implementations must be safe for concurrent use.
type NodeGraph interface {
	Node(name string) metav1.Object
}

// NodeIndexer is a NodeGraph over an informer's indexer of nodes (keys are node names).
type NodeIndexer struct{ Indexer cache.Indexer }

// Node implements NodeGraph.
func (n NodeIndexer) Node(name string) metav1.Object {
	obj, exists, err := n.Indexer.GetByKey(name)
	if err != nil || !exists {
		return nil
	}
	m, err := accessor(obj)
	if err != nil {
		return nil
	}
	return m
}

// nodeJoin returns the Definition of node.label:KEY (annotations false) or
// node.annotation:KEY over graph: the value of the label or annotation KEY of the node the pod
// runs on (spec.nodeName), for pods on a cached node that carries it. Unscheduled pods, other
// objects and metadata-only pods have no value. The value reads the node cache at the time of
// the call: hold it in a Join, never in a client-go indexer, and refresh the pods of a node
// when the node changes (see Join).
func nodeJoin(name, key string, annotations bool, graph NodeGraph) Definition {
	what := "label"
	if annotations {
		what = "annotation"
	}
	return Definition{
		Name:        name,
		Description: fmt.Sprintf("the value of %s %q of the pod's node", what, key),
		Relation:    NodeRelation,
		Func: func(obj interface{}) ([]string, error) {
			if _, err := accessor(obj); err != nil {
				return nil, err
			}
			if graph == nil {
				return nil, nil
			}
			nodes, _ := nodeIndexFunc(obj)
			if len(nodes) != 1 || nodes[0] == "" {
				return nil, nil
			}
			node := graph.Node(nodes[0])
			if node == nil {
				return nil, nil
			}
			values := node.GetLabels()
			if annotations {
				values = node.GetAnnotations()
			}
			if v, ok := values[key]; ok {
				return []string{v}, nil
			}
			return nil, nil
		},
	}
}

// lookupNodeJoin returns the unbound Definition of a node.label:KEY or node.annotation:KEY index
// name, and whether name is one.
func lookupNodeJoin(name string) (Definition, bool, error) {
	for _, family := range []struct {
		prefix, what string
		annotations  bool
	}{{nodeLabelPrefix, "label", false}, {nodeAnnotationPrefix, "annotation", true}} {
		if key, ok := strings.CutPrefix(name, family.prefix); ok {
			if err := validateKey(name, family.what, key); err != nil {
				return Definition{}, true, err
			}
			return nodeJoin(name, key, family.annotations, nil), true, nil
		}
	}
	return Definition{}, false, nil
}

// Graphs are the caches of related types that relationship indexes read.
type Graphs struct {
	Owners    OwnerGraph
	Selectors SelectorGraph
	Nodes     NodeGraph
	Pods      PodGraph
}

// Bind returns def reading g: the Definition of the same index name over g's graph of def's
// Relation. A Definition with no Relation is returned as it is.
func Bind(def Definition, g Graphs) Definition {
	switch def.Relation {
	case OwnerRelation:
		return OwnerRoot(g.Owners)
	case SelectorRelation:
		return SelectedBy(g.Selectors)
	case PodRelation:
		return Selects(g.Pods)
	case NodeRelation:
		if key, ok := strings.CutPrefix(def.Name, nodeLabelPrefix); ok {
			return nodeJoin(def.Name, key, false, g.Nodes)
		}
		if key, ok := strings.CutPrefix(def.Name, nodeAnnotationPrefix); ok {
			return nodeJoin(def.Name, key, true, g.Nodes)
		}
	}
	return def
}
