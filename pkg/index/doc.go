// Package index owns the indexes kubectl-informer can build over its caches: it parses index
// specs from the command line and turns them into client-go IndexFuncs.
//
// Three words are kept apart, as in k8s.io/client-go/tools/cache:
//
//   - the storage key of an object in a cache, "ns/name";
//   - the index name, what the user writes after --index or --indexer: "node", "label:app", "img";
//   - the indexed value, what an IndexFunc returns for an object: "worker-1".
//
// Every IndexFunc built here accepts the three forms of object an informer of kubectl-informer
// can hold: typed built-in objects (*corev1.Pod, *appsv1.Deployment, ...), *unstructured.Unstructured
// from dynamic informers, and *metav1.PartialObjectMetadata from metadata-only informers, as well as a
// cache.DeletedFinalStateUnknown wrapping any of them. Functions that need more than metadata return no
// value for a *metav1.PartialObjectMetadata; [Definition.MetadataOnly] says which functions are
// enough with metadata alone.
//
// An object with no value for an index is in no bucket of that index: its IndexFunc returns nil.
// The one exception is the node index on pods, described in [ParseSelector].
//
// A [Selector] (--index on query, --where on watch) picks objects by their indexed values with the
// operators of label selectors: =, !=, in, notin, exists (NAME) and does-not-exist (!NAME).
// [ParseSelector] reads one; [Keys] answers ANDed selectors from a cache.Indexer through its
// indexes, and [Selector.Matches] applies one to the values of a single object.
// [ServerSelection] says which selectors an API server can apply itself, as the label and field
// selectors of a list, with the same meaning.
//
// Relation indexes read other types' caches besides the object they index: owner-root
// ([OwnerRoot], through [Owners]), selected-by ([SelectedBy], through [PodSelectors]), selects
// ([Selects], through [Pods]), node.label:KEY / node.annotation:KEY (through [Nodes]) and
// event.reason / event.type / event.message (through [KubeEvents], kubeevents.go). Their
// Definition's [Relation] says which (relation.go); [Set.Lookup] returns them unbound (no
// value), and the engine, once it has started and synced the related caches, binds them with
// [Bind] and holds their values in a [RelationIndex]. Owners, PodSelectors, Nodes and Pods are
// small interfaces the engine (pkg/engine) provides, so this package does not import it. A value
// is computed from what the related caches hold at the time.
//
// client-go panics when an IndexFunc returns an error while it updates an index, so the functions
// here return an error only for an object that has no metadata at all, which no informer stores.
// A field of the wrong type or a JSONPath that fails on an object yields no value instead.
//
// The package does no I/O and knows nothing of cobra; it is safe for concurrent use.
package index
