package plugin

import (
	"strings"

	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// followSelectors makes the selected-by values of the objects of types follow the selecting
// objects (Services, workloads, PodDisruptionBudgets, NetworkPolicies) cached in selecting: when
// one is added or deleted, or its selector changes, set is updated and the values of the
// objects of its namespace, and only those (through client-go's namespace index, which every
// informer of the engine has), are recomputed (cache.Type.RefreshRelations); onChange gets the
// objects whose values changed, with the selecting object as the cause ("service/web"). An
// update that leaves the selector as it was (status, replicas, annotations) recomputes nothing.
//
// It runs on each selecting informer's handler goroutine, after that cache holds the change,
// as followNodes does; registering the handlers replays every cached object as added, which
// catches a selector changed between set's first contents and the handler. The types' joins
// must exist (AddRelations with follow) before it is called.
func followSelectors(selecting []*cache.Type, set *index.SelectorSet, types []*cache.Type, onChange func(t *cache.Type, cause string, changes []cache.RelationChange)) error {
	refresh := func(sel index.PodSelector, changed bool) {
		if !changed {
			return
		}
		cause := strings.ToLower(sel.Kind) + "/" + sel.Name
		for _, t := range types {
			changes, err := t.RefreshRelations(index.SelectorRelation, toolscache.NamespaceIndex, sel.Namespace)
			if err != nil {
				klog.V(1).InfoS("refreshing selector joins", "selector", cause, "namespace", sel.Namespace, "err", err)
				continue
			}
			if len(changes) > 0 {
				onChange(t, cause, changes)
			}
		}
	}
	for _, st := range selecting {
		for _, informer := range st.Informers {
			_, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
				AddFunc:    func(obj interface{}) { refresh(set.Set(obj)) },
				UpdateFunc: func(_, newObj interface{}) { refresh(set.Set(newObj)) },
				DeleteFunc: func(obj interface{}) {
					if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
						obj = tombstone.Obj
					}
					refresh(set.Delete(obj))
				},
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}
