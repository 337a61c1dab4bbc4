package index

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// Prefixes of the node relation index families: "node.label:topology.kubernetes.io/zone".
const (
	nodeLabelPrefix      = "node.label:"
	nodeAnnotationPrefix = "node.annotation:"
)

// Nodes is what the node relation indexes read: the cached metadata of a node by name, nil when
// it is not cached. Implementations must be safe for concurrent use.
type Nodes interface {
	Node(name string) metav1.Object
}

// NodeIndexer is a Nodes over an informer's indexer of nodes (keys are node names).
type NodeIndexer struct{ Indexer cache.Indexer }

// Node implements Nodes.
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

// nodeRelation returns the Definition of node.label:KEY (annotations false) or
// node.annotation:KEY over related: the value of the label or annotation KEY of the node the pod
// runs on (spec.nodeName), for pods on a cached node that carries it. Unscheduled pods, other
// objects and metadata-only pods have no value. The value reads the node cache at the time of
// the call: hold it in a RelationIndex, never in a client-go indexer, and refresh the pods of a node
// when the node changes (see RelationIndex).
func nodeRelation(name, key string, annotations bool, related Nodes) Definition {
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
			if related == nil {
				return nil, nil
			}
			nodes, _ := nodeIndexFunc(obj)
			if len(nodes) != 1 || nodes[0] == "" {
				return nil, nil
			}
			node := related.Node(nodes[0])
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

// lookupNodeRelation returns the unbound Definition of a node.label:KEY or node.annotation:KEY index
// name, and whether name is one.
func lookupNodeRelation(name string) (Definition, bool, error) {
	for _, family := range []struct {
		prefix, what string
		annotations  bool
	}{{nodeLabelPrefix, "label", false}, {nodeAnnotationPrefix, "annotation", true}} {
		if key, ok := strings.CutPrefix(name, family.prefix); ok {
			if err := validateKey(name, family.what, key); err != nil {
				return Definition{}, true, err
			}
			return nodeRelation(name, key, family.annotations, nil), true, nil
		}
	}
	return Definition{}, false, nil
}
