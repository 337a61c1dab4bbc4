package index

import (
	"fmt"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// Index names of the built-in indexes. Label and annotation indexes are families: their index names
// are labelPrefix or annotationPrefix followed by the key, as in "label:app".
const (
	namespaceIndexName = "namespace"
	labelPrefix        = "label:"
	annotationPrefix   = "annotation:"
	ownerIndexName     = "owner"
	ownerUIDIndexName  = "owner-uid"
	nodeIndexName      = "node"
	phaseIndexName     = "phase"
	imageIndexName     = "image"
)

// Builtin describes a built-in index family for listings such as `kubectl informer indexers`.
// Name is the index name as the user writes it, with KEY standing for a label or annotation key.
type Builtin struct {
	Name        string
	Description string
}

// Builtins returns the built-in index families in the order they are listed to users:
// namespace, label:KEY, annotation:KEY, owner, owner-uid, owner-root, selected-by, selects, node,
// node.label:KEY, node.annotation:KEY, phase, image, uses, used-by, event.reason, event.type,
// event.message.
// The caller owns the returned slice.
func Builtins() []Builtin {
	return []Builtin{
		{Name: namespaceIndexName, Description: "the object's namespace; cluster-scoped objects have no value"},
		{Name: labelPrefix + "KEY", Description: "the value of label KEY, for objects that carry it"},
		{Name: annotationPrefix + "KEY", Description: "the value of annotation KEY, for objects that carry it"},
		{Name: ownerIndexName, Description: "KIND/NAME of each owner reference, e.g. ReplicaSet/web-5d9c7"},
		{Name: ownerUIDIndexName, Description: "the UID of each owner reference"},
		{Name: ownerRootIndexName, Description: ownerRootDescription},
		{Name: selectedByIndexName, Description: selectedByDescription},
		{Name: selectsIndexName, Description: selectsDescription},
		{Name: nodeIndexName, Description: "spec.nodeName; unscheduled pods have the empty value (node=)"},
		{Name: nodeLabelPrefix + "KEY", Description: "the value of label KEY of the pod's node, e.g. node.label:topology.kubernetes.io/zone"},
		{Name: nodeAnnotationPrefix + "KEY", Description: "the value of annotation KEY of the pod's node"},
		{Name: phaseIndexName, Description: "status.phase, e.g. Running for pods or Bound for claims"},
		{Name: imageIndexName, Description: "every container image of a pod or of a workload's pod template"},
		{Name: usesIndexName, Description: usesDescription},
		{Name: usedByIndexName, Description: usedByDescription},
		{Name: eventReasonIndexName, Description: eventReasonDescription},
		{Name: eventTypeIndexName, Description: eventTypeDescription},
		{Name: eventMessageIndexName, Description: eventMessageDescription},
	}
}

// isBuiltinName reports whether name is reserved by a built-in index, including the bare family
// names "label" and "annotation".
func isBuiltinName(name string) bool {
	switch name {
	case namespaceIndexName, ownerIndexName, ownerUIDIndexName, ownerRootIndexName, selectedByIndexName, selectsIndexName, nodeIndexName, phaseIndexName, imageIndexName,
		usesIndexName, usedByIndexName, eventReasonIndexName, eventTypeIndexName, eventMessageIndexName,
		"label", "annotation":
		return true
	}
	return false
}

// FieldsRead returns the fields def's Func reads of an object besides its
// metadata, as field paths in JSON names ("spec.nodeName"), and true; false
// when def does not declare them (a custom or computed index, a relationship
// index): it may read anything. What each built-in index reads is declared
// beside its index function; a Func that reads more than its declaration
// would see partially decoded objects (cache.Config.Reads) without it.
func FieldsRead(def Definition) ([]string, bool) {
	if def.custom != nil || def.Expr != nil || def.Relation != NoRelation {
		return nil, false
	}
	if strings.HasPrefix(def.Name, labelPrefix) || strings.HasPrefix(def.Name, annotationPrefix) {
		return metadataReads, true
	}
	switch def.Name {
	case namespaceIndexName, ownerIndexName, ownerUIDIndexName:
		return metadataReads, true
	case nodeIndexName:
		return nodeReads, true
	case phaseIndexName:
		return phaseReads, true
	case imageIndexName:
		return imageReads(), true
	}
	return nil, false
}

// metadataReads is what the metadata indexes (namespace, label:KEY,
// annotation:KEY, owner, owner-uid) read besides metadata: nothing.
var metadataReads = []string{}

// Unwrap returns the object inside a cache.DeletedFinalStateUnknown, or obj
// itself: index functions and measures see the last known state of an object
// whose delete was missed.
func Unwrap(obj interface{}) interface{} {
	switch t := obj.(type) {
	case cache.DeletedFinalStateUnknown:
		return t.Obj
	case *cache.DeletedFinalStateUnknown:
		if t == nil {
			return nil
		}
		return t.Obj
	}
	return obj
}

// accessor returns the metadata of obj after unwrapping a tombstone.
func accessor(obj interface{}) (metav1.Object, error) {
	m, err := meta.Accessor(Unwrap(obj))
	if err != nil {
		return nil, fmt.Errorf("reading metadata of %T: %w", obj, err)
	}
	return m, nil
}

// namespaceIndexFunc indexes objects by namespace; cluster-scoped objects are in no bucket.
func namespaceIndexFunc(obj interface{}) ([]string, error) {
	m, err := accessor(obj)
	if err != nil {
		return nil, err
	}
	if ns := m.GetNamespace(); ns != "" {
		return []string{ns}, nil
	}
	return nil, nil
}

// labelIndexFunc returns an IndexFunc that indexes objects by the value of label key. An object
// whose label is present with an empty value is in the "" bucket.
func labelIndexFunc(key string) cache.IndexFunc {
	return metadataMapIndexFunc(key, metav1.Object.GetLabels)
}

// annotationIndexFunc returns an IndexFunc that indexes objects by the value of annotation key.
func annotationIndexFunc(key string) cache.IndexFunc {
	return metadataMapIndexFunc(key, metav1.Object.GetAnnotations)
}

// metadataMapIndexFunc indexes objects by the value of key in the metadata map get returns.
func metadataMapIndexFunc(key string, get func(metav1.Object) map[string]string) cache.IndexFunc {
	return func(obj interface{}) ([]string, error) {
		m, err := accessor(obj)
		if err != nil {
			return nil, err
		}
		if v, ok := get(m)[key]; ok {
			return []string{v}, nil
		}
		return nil, nil
	}
}

// ownerIndexFunc indexes objects by "Kind/name" of each of their owner references.
func ownerIndexFunc(obj interface{}) ([]string, error) {
	m, err := accessor(obj)
	if err != nil {
		return nil, err
	}
	refs := m.GetOwnerReferences()
	if len(refs) == 0 {
		return nil, nil
	}
	values := make([]string, 0, len(refs))
	for _, ref := range refs {
		values = appendUnique(values, ref.Kind+"/"+ref.Name)
	}
	return values, nil
}

// ownerUIDIndexFunc indexes objects by the UID of each of their owner references.
func ownerUIDIndexFunc(obj interface{}) ([]string, error) {
	m, err := accessor(obj)
	if err != nil {
		return nil, err
	}
	refs := m.GetOwnerReferences()
	if len(refs) == 0 {
		return nil, nil
	}
	values := make([]string, 0, len(refs))
	for _, ref := range refs {
		values = appendUnique(values, string(ref.UID))
	}
	return values, nil
}

// nodeReads is what nodeIndexFunc reads besides metadata.
var nodeReads = []string{"spec.nodeName"}

// nodeIndexFunc indexes objects by spec.nodeName. A pod always has exactly one value: its node,
// or "" while it is unscheduled, so that node= finds pending pods. Other objects have a value
// only when they have a spec.nodeName string field. Metadata-only objects have no value.
func nodeIndexFunc(obj interface{}) ([]string, error) {
	switch t := Unwrap(obj).(type) {
	case *corev1.Pod:
		return []string{t.Spec.NodeName}, nil
	case *metav1.PartialObjectMetadata,
		*corev1.Namespace, *corev1.Service, *corev1.ConfigMap, *corev1.Secret, *corev1.Node,
		*appsv1.Deployment, *appsv1.ReplicaSet, *appsv1.StatefulSet, *appsv1.DaemonSet,
		*batchv1.Job, *batchv1.CronJob:
		return nil, nil
	case *unstructured.Unstructured:
		return nodeFromContent(t.Object), nil
	default:
		content, err := object.Content(t)
		if err != nil {
			return nil, nil
		}
		return nodeFromContent(content), nil
	}
}

// nodeFromContent applies the node index rules to an object in its unstructured form.
func nodeFromContent(content map[string]interface{}) []string {
	if v, ok := nestedString(content, "spec", "nodeName"); ok {
		return []string{v}
	}
	if isCorePod(content) {
		// spec.nodeName is omitted from the JSON of an unscheduled pod.
		return []string{""}
	}
	return nil
}

// isCorePod reports whether content is a core v1 Pod.
func isCorePod(content map[string]interface{}) bool {
	kind, _ := content["kind"].(string)
	apiVersion, _ := content["apiVersion"].(string)
	return kind == "Pod" && apiVersion == "v1"
}

// phaseReads is what phaseIndexFunc reads besides metadata.
var phaseReads = []string{"status.phase"}

// phaseIndexFunc indexes objects by status.phase; an empty or absent phase is no value.
func phaseIndexFunc(obj interface{}) ([]string, error) {
	var phase string
	switch t := Unwrap(obj).(type) {
	case *corev1.Pod:
		phase = string(t.Status.Phase)
	case *corev1.Namespace:
		phase = string(t.Status.Phase)
	case *corev1.PersistentVolume:
		phase = string(t.Status.Phase)
	case *corev1.PersistentVolumeClaim:
		phase = string(t.Status.Phase)
	case *metav1.PartialObjectMetadata,
		*corev1.Service, *corev1.ConfigMap, *corev1.Secret,
		*appsv1.Deployment, *appsv1.ReplicaSet, *appsv1.StatefulSet, *appsv1.DaemonSet,
		*batchv1.Job, *batchv1.CronJob:
		return nil, nil
	case *unstructured.Unstructured:
		phase, _ = nestedString(t.Object, "status", "phase")
	default:
		content, err := object.Content(t)
		if err != nil {
			return nil, nil
		}
		phase, _ = nestedString(content, "status", "phase")
	}
	if phase == "" {
		return nil, nil
	}
	return []string{phase}, nil
}

// imageReads is what imageIndexFunc reads besides metadata: the image of
// every container list of every pod spec path, built on first use.
var imageReads = sync.OnceValue(func() []string {
	var paths []string
	for _, spec := range podSpecPaths {
		for _, list := range containerLists {
			paths = append(paths, strings.Join(append(append([]string(nil), spec...), list, "image"), "."))
		}
	}
	return paths
})

// imageIndexFunc indexes pods by the image of every container, init container and ephemeral
// container, and workloads by the images of their pod template. Values are deduplicated.
func imageIndexFunc(obj interface{}) ([]string, error) {
	switch t := Unwrap(obj).(type) {
	case *corev1.Pod:
		return podSpecImages(&t.Spec), nil
	case *appsv1.Deployment:
		return podSpecImages(&t.Spec.Template.Spec), nil
	case *appsv1.ReplicaSet:
		return podSpecImages(&t.Spec.Template.Spec), nil
	case *appsv1.StatefulSet:
		return podSpecImages(&t.Spec.Template.Spec), nil
	case *appsv1.DaemonSet:
		return podSpecImages(&t.Spec.Template.Spec), nil
	case *batchv1.Job:
		return podSpecImages(&t.Spec.Template.Spec), nil
	case *batchv1.CronJob:
		return podSpecImages(&t.Spec.JobTemplate.Spec.Template.Spec), nil
	case *corev1.ReplicationController:
		if t.Spec.Template == nil {
			return nil, nil
		}
		return podSpecImages(&t.Spec.Template.Spec), nil
	case *corev1.PodTemplate:
		return podSpecImages(&t.Template.Spec), nil
	case *metav1.PartialObjectMetadata,
		*corev1.Namespace, *corev1.Service, *corev1.ConfigMap, *corev1.Secret, *corev1.Node:
		return nil, nil
	case *unstructured.Unstructured:
		return contentImages(t.Object), nil
	default:
		content, err := object.Content(t)
		if err != nil {
			return nil, nil
		}
		return contentImages(content), nil
	}
}

// podSpecImages returns the distinct non-empty images of spec's containers, init containers and
// ephemeral containers, in that order.
func podSpecImages(spec *corev1.PodSpec) []string {
	n := len(spec.Containers) + len(spec.InitContainers) + len(spec.EphemeralContainers)
	if n == 0 {
		return nil
	}
	values := make([]string, 0, n)
	for i := range spec.Containers {
		values = appendUniqueNonEmpty(values, spec.Containers[i].Image)
	}
	for i := range spec.InitContainers {
		values = appendUniqueNonEmpty(values, spec.InitContainers[i].Image)
	}
	for i := range spec.EphemeralContainers {
		values = appendUniqueNonEmpty(values, spec.EphemeralContainers[i].Image)
	}
	if len(values) == 0 {
		return nil
	}
	return values
}

// podSpecPaths are where a pod spec sits in the unstructured form of the objects the image index
// knows: a Pod, a workload with a pod template (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
// ReplicationController and custom resources shaped alike), a CronJob, and a PodTemplate.
var podSpecPaths = [][]string{
	{"spec"},
	{"spec", "template", "spec"},
	{"spec", "jobTemplate", "spec", "template", "spec"},
	{"template", "spec"},
}

// containerLists are the fields of a pod spec that hold containers.
var containerLists = []string{"containers", "initContainers", "ephemeralContainers"}

// contentImages returns the distinct images of every pod spec found in an object's unstructured form.
func contentImages(content map[string]interface{}) []string {
	var values []string
	for _, path := range podSpecPaths {
		spec, found, err := unstructured.NestedFieldNoCopy(content, path...)
		if !found || err != nil {
			continue
		}
		specMap, ok := spec.(map[string]interface{})
		if !ok {
			continue
		}
		for _, field := range containerLists {
			containers, ok := specMap[field].([]interface{})
			if !ok {
				continue
			}
			for _, c := range containers {
				container, ok := c.(map[string]interface{})
				if !ok {
					continue
				}
				if image, ok := container["image"].(string); ok {
					values = appendUniqueNonEmpty(values, image)
				}
			}
		}
	}
	return values
}

// nestedString returns the string at fields in content, reporting false when it is absent or
// not a string.
func nestedString(content map[string]interface{}, fields ...string) (string, bool) {
	v, found, err := unstructured.NestedFieldNoCopy(content, fields...)
	if !found || err != nil {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

// appendUnique appends v to values unless values already holds it. Index values per object are
// few, so a linear scan beats a map.
func appendUnique(values []string, v string) []string {
	for _, have := range values {
		if have == v {
			return values
		}
	}
	return append(values, v)
}

// appendUniqueNonEmpty is appendUnique that also skips the empty string.
func appendUniqueNonEmpty(values []string, v string) []string {
	if v == "" {
		return values
	}
	return appendUnique(values, v)
}
