package plugin

import (
	"maps"

	"k8s.io/apimachinery/pkg/api/meta"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// nodeIndexName is the built-in index of pods by spec.nodeName, through which a node's change
// finds the pods whose node join values it may change.
const nodeIndexName = "node"

// followNodes makes the node join values (node.label:KEY, node.annotation:KEY) of the objects of
// types follow their nodes: when a node is added, deleted, or its labels or annotations change,
// the values of the pods on it, and only those (found through the node index, which it registers
// where it is missing), are recomputed (cache.Type.RefreshRelations), and onChange gets the pods whose
// values changed, with "node/NAME" as the cause.
//
// It runs on the node informer's handler goroutine, one node event at a time in the order the
// informer saw them, after the node cache holds the change; client-go buffers the node events
// while it works, and the informers themselves never wait for it. Registering the handler
// replays every cached node as added, which catches a change made between the joins' first
// values and the handler. The types' joins must exist (AddRelations with follow) before it is called.
func followNodes(nodes *cache.Type, types []*cache.Type, onChange func(t *cache.Type, cause string, changes []cache.RelationChange)) error {
	nodeIndex, err := (*index.Set)(nil).Lookup(nodeIndexName)
	if err != nil {
		return err
	}
	for _, t := range types {
		if !t.HasIndex(nodeIndexName) {
			if err := t.AddIndexes(nodeIndex); err != nil {
				return err
			}
		}
	}
	refresh := func(obj interface{}) {
		name := objectName(obj)
		if name == "" {
			return
		}
		for _, t := range types {
			changes, err := t.RefreshRelations(index.NodeRelation, nodeIndexName, name)
			if err != nil {
				klog.V(1).InfoS("refreshing node joins", "node", name, "err", err)
				continue
			}
			if len(changes) > 0 {
				onChange(t, "node/"+name, changes)
			}
		}
	}
	return followChanges(nodes, nodeRelationChanged, refresh)
}

// followChanges calls refresh with each object of related that is added or deleted, and with
// the new object of each update for which changed reports true. refresh runs on the informers'
// handler goroutines.
func followChanges(related *cache.Type, changed func(oldObj, newObj interface{}) bool, refresh func(obj interface{})) error {
	for _, informer := range related.Informers {
		_, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: refresh,
			UpdateFunc: func(oldObj, newObj interface{}) {
				if changed(oldObj, newObj) {
					refresh(newObj)
				}
			},
			DeleteFunc: func(obj interface{}) {
				if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
					obj = tombstone.Obj
				}
				refresh(obj)
			},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// nodeRelationChanged reports whether a node's update may change node join values: its labels or
// annotations changed. Status updates (heartbeats) do not.
func nodeRelationChanged(oldObj, newObj interface{}) bool {
	o, err1 := meta.Accessor(oldObj)
	n, err2 := meta.Accessor(newObj)
	if err1 != nil || err2 != nil {
		return true
	}
	return !maps.Equal(o.GetLabels(), n.GetLabels()) || !maps.Equal(o.GetAnnotations(), n.GetAnnotations())
}
