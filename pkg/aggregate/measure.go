package aggregate

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/util/jsonpath"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// sumFlag is the flag that names measures; its name starts the errors about them.
const sumFlag = "--sum"

// Names of the built-in measures that are not a resource.
const (
	// MeasureRestarts is the sum of the restart counts of a pod's containers.
	MeasureRestarts = "restarts"
	// MeasureContainers is the number of a pod's long-running containers.
	MeasureContainers = "containers"
	// ColumnCount is the name of the count column of a grouped table; no measure may take it.
	ColumnCount = "count"

	requestsPrefix = "requests."
	limitsPrefix   = "limits."
)

// SchedulerOptions are the options kube-scheduler v1.37 passes to PodRequests when it accounts a
// pod on a node (PodInfo.CalculateResource in pkg/scheduler/framework/types.go, which
// NodeInfo.AddPod and so the NodeResourcesFit plugin use), with the feature gates at their
// v1.37 defaults:
//
//   - UseStatusResources: InPlacePodVerticalScaling is GA and locked on since v1.35, so a pod whose
//     resources were resized in place counts the larger of its spec, its allocated and its
//     actuated resources (the status of its containers), as on the node;
//   - InPlacePodLevelResourcesVerticalScalingEnabled: beta and on by default since v1.36, the same
//     for pod-level resources;
//   - SkipPodLevelResources false: PodLevelResources is beta and on by default since v1.34, so
//     spec.resources (pod-level cpu, memory, hugepages) replaces the containers' sum;
//   - ExcludeOverhead false: spec.overhead (RuntimeClass) is added;
//   - UseDRANodeAllocatableResourceClaimStatus false: DRANodeAllocatableResources is alpha, off.
//
// kubectl describe node uses the same options for each pod's line. PodLimits takes the same
// options, as kubectl describe node does for its per-pod limits.
var SchedulerOptions = resourcehelper.PodResourcesOptions{
	UseStatusResources: true,
	InPlacePodLevelResourcesVerticalScalingEnabled: true,
	SkipPodLevelResources:                          false,
	ExcludeOverhead:                                false,
	UseDRANodeAllocatableResourceClaimStatus:       false,
}

type measureKind int

const (
	measureRequests measureKind = iota
	measureLimits
	measureRestarts
	measureContainers
	measureJSONPath
	measureUsage
	measureShare
)

// Measure is one quantity summed per group: a built-in measure of pods or a custom JSONPath.
// Parse it with [ParseMeasure]. A Measure is safe for concurrent use; copies share its state.
//
// Its method Value is a func(obj interface{}) (resource.Quantity, error).
type Measure struct {
	// Name is the column name: "requests.cpu", "limits.nvidia.com/gpu", "restarts", or the NAME
	// of NAME=JSONPATH.
	Name string
	// JSONPath is the JSONPath expression of a custom measure ("{.spec.replicas}"), empty for a
	// built-in one.
	JSONPath string
	// PodsOnly is true for the built-in measures, which read only pods.
	PodsOnly bool
	// Resource is the resource name of a requests. or limits. measure ("cpu"), empty otherwise.
	Resource corev1.ResourceName

	kind    measureKind
	glob    bool // Resource is a shell-style pattern of resource names
	path    *jsonPathMeasure
	samples *usageSamples // a usage measure's, once bound (BindUsage)
	share   *shareParts   // a share measure's parts
}

// ParseMeasure parses the value of one --sum flag:
//
//   - requests.RESOURCE, limits.RESOURCE: the pod's effective request or limit of RESOURCE
//     ("cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "hugepages-2Mi"), computed by
//     k8s.io/component-helpers/resource PodRequests/PodLimits with [SchedulerOptions]: the larger of
//     the app containers' sum (restartable init containers, sidecars, included) and the largest
//     init container with the sidecars started before it; pod-level resources when set; plus pod
//     overhead. A pod in phase Succeeded or Failed counts zero, as it holds nothing on its node.
//   - requests.GLOB, limits.GLOB: a shell-style pattern on the resource name
//     ("requests.nvidia.com/*", "limits.nvidia.com/mig-*"), which stands for one measure per
//     resource name it matches ([ExpandGlobs]); it has no value of its own.
//   - restarts: the sum of restartCount over the pod's container and init container statuses, for
//     every pod, terminal ones included. kubectl's RESTARTS column can be lower: it leaves out
//     the restarts of init containers that are not sidecars once the pod is initialized.
//   - containers: the pod's app containers plus its sidecars, as kubectl's READY column counts them.
//   - usage.cpu, usage.memory: the object's usage in the metrics API's latest sample
//     (metrics.k8s.io: PodMetrics, the containers summed as kubectl top pod sums them; NodeMetrics
//     for a node, the node's own usage as its kubelet reports it), for pods and nodes only. Its
//     values are read from the samples [BindUsage] gives it; an object without a sample counts
//     zero.
//   - usage.cpu/requests.cpu, usage.memory/requests.memory (or /limits.cpu, /limits.memory): a
//     share measure, for pods only. A [Grouper] sums its two parts, usage.RESOURCE and
//     requests.RESOURCE (or limits.RESOURCE), and its cell shows both and the one as a share of
//     the other, "721m/1500m (48%)"; a group that requests none shows no percentage, "721m/0".
//     It sorts by that share. It has no value of its own per object.
//   - NAME=JSONPATH: every result of the JSONPath on the object, read as a quantity ("250m", "1Gi",
//     3, 1.5), summed; absent and null results count zero. JSONPATH takes the full "{.spec.x}"
//     form or kubectl's relaxed ".spec.x"/"spec.x" form ([index.RelaxedJSONPath]). Works on any
//     resource.
//
// Errors name the flag: `--sum needs MEASURE or NAME=JSONPATH, got ""`.
func ParseMeasure(s string) (Measure, error) {
	if name, path, ok := strings.Cut(s, "="); ok {
		return parseCustomMeasure(name, path)
	}
	switch {
	case s == MeasureRestarts:
		return Measure{Name: s, PodsOnly: true, kind: measureRestarts}, nil
	case s == MeasureContainers:
		return Measure{Name: s, PodsOnly: true, kind: measureContainers}, nil
	case strings.HasPrefix(s, requestsPrefix):
		return resourceMeasure(s, strings.TrimPrefix(s, requestsPrefix), measureRequests)
	case strings.HasPrefix(s, limitsPrefix):
		return resourceMeasure(s, strings.TrimPrefix(s, limitsPrefix), measureLimits)
	case strings.HasPrefix(s, usagePrefix) && strings.Contains(s, "/"):
		used, of, _ := strings.Cut(s, "/")
		return shareMeasure(s, used, of)
	case strings.HasPrefix(s, usagePrefix):
		return usageMeasure(s, strings.TrimPrefix(s, usagePrefix))
	}
	return Measure{}, fmt.Errorf("%s needs MEASURE or NAME=JSONPATH, got %q; measures are "+
		"requests.RESOURCE, limits.RESOURCE, usage.cpu, usage.memory, usage.cpu/requests.cpu, restarts and containers", sumFlag, s)
}

// resourceMeasure builds a requests. or limits. measure of the resource name r.
func resourceMeasure(s, r string, kind measureKind) (Measure, error) {
	if isGlob(r) {
		if err := checkGlob(r); err != nil {
			return Measure{}, fmt.Errorf("%s %s: malformed glob %q: %w", sumFlag, s, r, err)
		}
		return Measure{Name: s, PodsOnly: true, Resource: corev1.ResourceName(r), kind: kind, glob: true}, nil
	}
	if errs := validation.IsQualifiedName(r); len(errs) > 0 {
		return Measure{}, fmt.Errorf("%s %s: invalid resource name %q: %s", sumFlag, s, r, strings.Join(errs, "; "))
	}
	return Measure{Name: s, PodsOnly: true, Resource: corev1.ResourceName(r), kind: kind}, nil
}

// parseCustomMeasure builds the measure NAME=JSONPATH.
func parseCustomMeasure(name, path string) (Measure, error) {
	if name == "" || path == "" {
		return Measure{}, fmt.Errorf("%s needs NAME=JSONPATH, got %q", sumFlag, name+"="+path)
	}
	if err := validateMeasureName(name); err != nil {
		return Measure{}, err
	}
	expr, err := index.RelaxedJSONPath(path)
	if err != nil {
		return Measure{}, fmt.Errorf("%s %s: invalid JSONPath %q: %w", sumFlag, name, path, err)
	}
	p := &jsonPathMeasure{name: name, expr: expr}
	j, err := p.parse()
	if err != nil {
		return Measure{}, fmt.Errorf("%s %s: invalid JSONPath %q: %w", sumFlag, name, path, err)
	}
	p.pool.Put(j)
	p.pool.New = func() any {
		j, err := p.parse()
		if err != nil {
			// Unreachable: parseCustomMeasure parsed the same expression.
			panic(fmt.Sprintf("parsing checked JSONPath %q: %v", p.expr, err))
		}
		return j
	}
	return Measure{Name: name, JSONPath: expr, kind: measureJSONPath, path: p}, nil
}

// validateMeasureName checks that name can be the name of a custom measure: a printable column
// name that is not the name of a built-in measure or of the count column.
func validateMeasureName(name string) error {
	switch {
	case strings.ContainsAny(name, " \t\n\r\"'{}"):
		return fmt.Errorf("%s: invalid measure name %q: no spaces, quotes or braces", sumFlag, name)
	case strings.EqualFold(name, ColumnCount), name == MeasureRestarts, name == MeasureContainers,
		strings.HasPrefix(name, requestsPrefix), strings.HasPrefix(name, limitsPrefix), strings.HasPrefix(name, usagePrefix):
		return fmt.Errorf("%s: measure name %q is taken by a built-in measure or column; choose another name", sumFlag, name)
	}
	return nil
}

// Value returns the measure of one object. Built-in measures take a *corev1.Pod, a *[PodAllocation] or
// a pod as *unstructured.Unstructured (converted first), also inside a
// cache.DeletedFinalStateUnknown; any other object is an error. Custom measures take any object
// but a PodAllocation; a result that is not a quantity is an error naming the measure.
func (m Measure) Value(obj interface{}) (resource.Quantity, error) {
	values, err := Values([]Measure{m}, obj)
	if err != nil {
		return resource.Quantity{}, err
	}
	return values[0], nil
}

// Values returns the measures ms of one object, in the order of ms. It converts the object at
// most once for all of ms, and computes each requests. or limits. measure for its one resource
// ([PodRequest], [PodLimit]). Usage measures read their bound samples ([BindUsage]) by the
// object's namespace and name, whatever else it holds.
func Values(ms []Measure, obj interface{}) ([]resource.Quantity, error) {
	for _, m := range ms {
		if m.glob {
			return nil, globError(m)
		}
		if m.IsShare() {
			return nil, fmt.Errorf("measure %s: a share is of a group's sums; sum its parts, %s and %s", m.Name, m.share.used.Name, m.share.of.Name)
		}
	}
	if NeedsUsage(ms) {
		return usageValues(ms, obj)
	}
	obj = index.Unwrap(obj)
	if r, ok := obj.(*index.Record); ok {
		if values, ok, err := r.Measures(measureNames(ms)); ok {
			return values, err
		}
	}
	values := make([]resource.Quantity, len(ms))
	var (
		pod     *corev1.Pod
		content map[string]interface{}
	)
	alloc, _ := obj.(*PodAllocation)
	for i, m := range ms {
		if alloc != nil {
			if m.kind == measureJSONPath {
				return nil, fmt.Errorf("measure %s: custom measures read whole objects, got the allocation of pod %s/%s", m.Name, alloc.Namespace, alloc.Name)
			}
			values[i] = alloc.value(m)
			continue
		}
		if m.kind == measureJSONPath {
			if content == nil {
				c, err := object.Content(obj)
				if err != nil {
					return nil, fmt.Errorf("measure %s: %w", m.Name, err)
				}
				content = c
			}
			q, err := m.path.evaluate(content)
			if err != nil {
				return nil, fmt.Errorf("measure %s of %s: %w", m.Name, describe(obj), err)
			}
			values[i] = q
			continue
		}
		if pod == nil {
			p, err := AsPod(obj)
			if err != nil {
				return nil, fmt.Errorf("measure %s: %w", m.Name, err)
			}
			pod = p
		}
		switch m.kind {
		case measureRequests:
			values[i] = PodRequest(pod, m.Resource)
		case measureLimits:
			values[i] = PodLimit(pod, m.Resource)
		case measureRestarts:
			values[i] = *resource.NewQuantity(podRestarts(pod), resource.DecimalSI)
		case measureContainers:
			values[i] = *resource.NewQuantity(podContainers(pod), resource.DecimalSI)
		}
	}
	return values, nil
}

// IsTerminal reports whether pod is Succeeded or Failed: its containers are gone and it holds
// no resources on its node. kube-scheduler's pod informer leaves such pods out.
func IsTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// PodRequests returns pod's effective requests as kube-scheduler accounts them on a node
// ([SchedulerOptions]), or an empty list for a terminal pod. The list is the caller's.
func PodRequests(pod *corev1.Pod) corev1.ResourceList {
	if IsTerminal(pod) {
		return corev1.ResourceList{}
	}
	return resourcehelper.PodRequests(pod, SchedulerOptions)
}

// PodLimits returns pod's effective limits with [SchedulerOptions] (overhead added to the
// non-zero limits), or an empty list for a terminal pod. A resource without a limit in some
// container has the sum of the limits that are set: it is not unlimited here, as in kubectl
// describe node.
func PodLimits(pod *corev1.Pod) corev1.ResourceList {
	if IsTerminal(pod) {
		return corev1.ResourceList{}
	}
	return resourcehelper.PodLimits(pod, SchedulerOptions)
}

// podRestarts is the sum of restartCount over the pod's container and init container statuses.
func podRestarts(pod *corev1.Pod) int64 {
	var n int64
	for i := range pod.Status.ContainerStatuses {
		n += int64(pod.Status.ContainerStatuses[i].RestartCount)
	}
	for i := range pod.Status.InitContainerStatuses {
		n += int64(pod.Status.InitContainerStatuses[i].RestartCount)
	}
	return n
}

// podContainers is the number of app containers and restartable init containers (sidecars).
func podContainers(pod *corev1.Pod) int64 {
	n := int64(len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		if isRestartableInitContainer(&pod.Spec.InitContainers[i]) {
			n++
		}
	}
	return n
}

// isRestartableInitContainer reports whether an init container is a sidecar: restartPolicy Always.
func isRestartableInitContainer(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// AsPod returns obj as a *corev1.Pod: a *corev1.Pod as it is (not copied: do not mutate it), an
// *unstructured.Unstructured of kind Pod converted, either also inside a
// cache.DeletedFinalStateUnknown. Anything else is an error.
func AsPod(obj interface{}) (*corev1.Pod, error) {
	switch t := index.Unwrap(obj).(type) {
	case *corev1.Pod:
		if t == nil {
			return nil, fmt.Errorf("nil pod")
		}
		return t, nil
	case *unstructured.Unstructured:
		if t == nil || t.GetKind() != "Pod" || t.GroupVersionKind().Group != "" {
			return nil, fmt.Errorf("built-in measures read pods, got %s", describe(t))
		}
		pod := &corev1.Pod{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(t.Object, pod); err != nil {
			return nil, fmt.Errorf("converting %s to a pod: %w", describe(t), err)
		}
		return pod, nil
	case *metav1.PartialObjectMetadata:
		return nil, fmt.Errorf("built-in measures need whole pods, got metadata only")
	default:
		return nil, fmt.Errorf("built-in measures read pods, got %T", obj)
	}
}

// describe names obj in errors: "pod default/web-1", or its Go type.
func describe(obj interface{}) string {
	m, ok := obj.(metav1.Object)
	if !ok || reflect.ValueOf(obj).IsNil() {
		return fmt.Sprintf("%T", obj)
	}
	kind := "object"
	if r, ok := obj.(runtime.Object); ok {
		if k := r.GetObjectKind().GroupVersionKind().Kind; k != "" {
			kind = strings.ToLower(k)
		} else if _, ok := obj.(*corev1.Pod); ok {
			kind = "pod"
		}
	}
	if m.GetNamespace() == "" {
		return kind + " " + m.GetName()
	}
	return kind + " " + m.GetNamespace() + "/" + m.GetName()
}

// jsonPathMeasure evaluates one custom measure's JSONPath. A jsonpath.JSONPath is not safe for
// concurrent use, so each evaluation takes a parsed JSONPath of its own from pool.
type jsonPathMeasure struct {
	name string
	expr string
	pool sync.Pool
}

// parse parses the expression into a JSONPath that treats missing keys as no result, turning a
// panic of the parser into an error.
func (p *jsonPathMeasure) parse() (j *jsonpath.JSONPath, err error) {
	defer func() {
		if r := recover(); r != nil {
			j, err = nil, fmt.Errorf("parsing: %v", r)
		}
	}()
	j = jsonpath.New(p.name).AllowMissingKeys(true)
	if err := j.Parse(p.expr); err != nil {
		return nil, err
	}
	return j, nil
}

// evaluate sums every result of the JSONPath on content as a quantity. A panic inside the
// jsonpath package is an error.
func (p *jsonPathMeasure) evaluate(content map[string]interface{}) (sum resource.Quantity, err error) {
	j := p.pool.Get().(*jsonpath.JSONPath)
	defer func() {
		if r := recover(); r != nil {
			sum, err = resource.Quantity{}, fmt.Errorf("evaluating %s: %v", p.expr, r)
			return // drop j: its state is unknown
		}
		p.pool.Put(j)
	}()
	results, err := j.FindResults(content)
	if err != nil {
		return resource.Quantity{}, fmt.Errorf("evaluating %s: %w", p.expr, err)
	}
	for _, group := range results {
		for _, r := range group {
			q, ok, err := quantityOf(r)
			if err != nil {
				return resource.Quantity{}, err
			}
			if ok {
				sum.Add(q)
			}
		}
	}
	return sum, nil
}

// quantityOf reads one JSONPath result as a quantity: a string in Kubernetes' quantity syntax, or
// a number. A null result is no quantity (ok false); anything else is an error.
func quantityOf(v reflect.Value) (q resource.Quantity, ok bool, err error) {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return resource.Quantity{}, false, nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Invalid:
		return resource.Quantity{}, false, nil
	case reflect.String:
		q, err := resource.ParseQuantity(v.String())
		if err != nil {
			return resource.Quantity{}, false, fmt.Errorf("value %q is not a quantity", v.String())
		}
		return q, true, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return *resource.NewQuantity(v.Int(), resource.DecimalSI), true, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.Uint() > math.MaxInt64 {
			return resource.Quantity{}, false, fmt.Errorf("value %d is too large", v.Uint())
		}
		return *resource.NewQuantity(int64(v.Uint()), resource.DecimalSI), true, nil
	case reflect.Float32, reflect.Float64:
		s := strconv.FormatFloat(v.Float(), 'f', -1, 64)
		q, err := resource.ParseQuantity(s)
		if err != nil {
			return resource.Quantity{}, false, fmt.Errorf("value %s is not a quantity", s)
		}
		return q, true, nil
	case reflect.Bool:
		return resource.Quantity{}, false, fmt.Errorf("value %t is not a quantity", v.Bool())
	}
	return resource.Quantity{}, false, fmt.Errorf("a %s is not a quantity", v.Kind())
}
