package index

import "strings"

// Relation says which other types' caches a Definition reads, beyond the object it indexes. A
// Definition with a Relation other than NoRelation is a relation index: owner-root,
// selected-by, selects, node.label:KEY, node.annotation:KEY and event.reason, event.type,
// event.message.
// selected-by, selects, node.label:KEY, node.annotation:KEY, uses and used-by.
//
// Set.Lookup returns a relation index unbound: its Func gives no value. The engine (pkg/engine,
// StartRelations) caches the related types once the indexed types have synced, binds the
// Definition to them with Bind, and holds its values in a RelationIndex, never in a client-go
// indexer (see RelationIndex for why).
type Relation int

const (
	// NoRelation marks a Definition that reads only the object it indexes.
	NoRelation Relation = iota
	// OwnerRelation marks a Definition that reads the cached owners of the object, up its
	// controller references (owner-root); Bind binds it to Owners.
	OwnerRelation
	// SelectorRelation marks a Definition that reads the pod selectors of other objects in the
	// pod's namespace (selected-by); Bind binds it to PodSelectors.
	SelectorRelation
	// NodeRelation marks a Definition that reads the cached node of a pod (node.label:KEY,
	// node.annotation:KEY); Bind binds it to Nodes.
	NodeRelation
	// PodRelation marks a Definition that reads the cached pods of the object's namespace
	// (selects); Bind binds it to Pods.
	PodRelation
	// EventRelation marks a Definition that reads the cached Kubernetes Events about the object
	// (event.reason, event.type, event.message); Bind binds it to Events.
	EventRelation
	// UsesRelation marks a Definition that reads the cached ServiceAccounts and
	// PersistentVolumeClaims a pod or pod template refers to (uses); Bind binds it to Referenced.
	UsesRelation
	// UsedByRelation marks a Definition that reads the cached objects that refer to others:
	// pods, workloads, Ingresses, role bindings, ServiceAccounts and claims (used-by); Bind
	// binds it to Users.
	UsedByRelation
)

// Relations are the caches of related types that relation indexes read, one per Relation; a
// nil one gives no value.
type Relations struct {
	Owners    Owners
	Selectors PodSelectors
	Nodes     Nodes
	Pods      Pods
	Events    KubeEvents
	// Referenced and Users are what uses and used-by read.
	Referenced Referenced
	Users      Users
}

// Bind returns def reading r: the Definition of the same index name over r's cache of def's
// Relation. A Definition with no Relation is returned as it is.
func Bind(def Definition, r Relations) Definition {
	switch def.Relation {
	case OwnerRelation:
		return OwnerRoot(r.Owners)
	case SelectorRelation:
		return SelectedBy(r.Selectors)
	case PodRelation:
		return Selects(r.Pods)
	case EventRelation:
		return eventRelation(def.Name, r.Events)
	case UsesRelation:
		return UsesIndex(r.Referenced)
	case UsedByRelation:
		return UsedByIndex(r.Users)
	case NodeRelation:
		if key, ok := strings.CutPrefix(def.Name, nodeLabelPrefix); ok {
			return nodeRelation(def.Name, key, false, r.Nodes)
		}
		if key, ok := strings.CutPrefix(def.Name, nodeAnnotationPrefix); ok {
			return nodeRelation(def.Name, key, true, r.Nodes)
		}
	}
	return def
}
