package aggregate

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
)

// NodeAllocation is what the pods bound to one node hold there: how many they are and their summed
// requests and limits ([PodRequests], [PodLimits]); and, when their usage was asked for
// ([AllocationByNode].Usage), what those of them the metrics API sampled use, summed exactly.
type NodeAllocation struct {
	Pods      int64
	Requests  corev1.ResourceList
	Limits    corev1.ResourceList
	PodsUsage corev1.ResourceList
}

// AllocationByNode sums pods per node, by spec.nodeName. Build it with [NewAllocationByNode] and call Add
// for every pod. It is not safe for concurrent use.
type AllocationByNode struct {
	// Nodes holds what the pods of each node that has pods hold there.
	Nodes map[string]*NodeAllocation
	// Unscheduled counts the pods with no node yet (pending): they hold nothing on a node.
	Unscheduled int64
	// Terminal counts the pods skipped because they are Succeeded or Failed.
	Terminal int64
	// Usage, when set before pods are added, is the metrics API's samples whose pods' usage
	// each node's PodsUsage sums.
	Usage *usage.Snapshot
}

// NewAllocationByNode returns an empty AllocationByNode.
func NewAllocationByNode() *AllocationByNode {
	return &AllocationByNode{Nodes: map[string]*NodeAllocation{}}
}

// Add adds one pod (a *corev1.Pod, a *[PodAllocation], or a pod as unstructured, see [AsPod]) to its
// node's allocation. A terminal pod is counted in Terminal and nowhere else, as kube-scheduler does
// not count it against its node's pod capacity either; a pod with no node is counted in
// Unscheduled.
func (u *AllocationByNode) Add(obj interface{}) error {
	if alloc, ok := index.Unwrap(obj).(*PodAllocation); ok && alloc != nil {
		u.add(alloc.NodeName, alloc.IsTerminal(), alloc.Requests, alloc.Limits, u.podUsage(alloc))
		return nil
	}
	pod, err := AsPod(obj)
	if err != nil {
		return err
	}
	if IsTerminal(pod) {
		u.Terminal++
		return nil
	}
	u.add(pod.Spec.NodeName, false, PodRequests(pod), PodLimits(pod), u.podUsage(pod))
	return nil
}

// podUsage is the usage of pod in u.Usage, nil without one.
func (u *AllocationByNode) podUsage(pod interface{}) corev1.ResourceList {
	if u.Usage == nil {
		return nil
	}
	sample, _ := u.Usage.Of(pod)
	return sample.Usage
}

// add adds the requests, limits and usage of one pod bound to node.
func (u *AllocationByNode) add(node string, terminal bool, requests, limits, used corev1.ResourceList) {
	if terminal {
		u.Terminal++
		return
	}
	if node == "" {
		u.Unscheduled++
		return
	}
	n, ok := u.Nodes[node]
	if !ok {
		n = &NodeAllocation{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}, PodsUsage: corev1.ResourceList{}}
		u.Nodes[node] = n
	}
	n.Pods++
	addResourceList(n.Requests, requests)
	addResourceList(n.Limits, limits)
	addResourceList(n.PodsUsage, used)
}

// addResourceList adds add into list, exactly.
func addResourceList(list, add corev1.ResourceList) {
	for name, q := range add {
		sum := list[name]
		sum.Add(q)
		list[name] = sum
	}
}

// Capacity columns: the names --sort-by matches, and the headers printed.
const (
	ColumnNode        = "node"
	ColumnNodes       = "nodes"
	ColumnPods        = "pods"
	ColumnCPURequests = "requests.cpu"
	ColumnCPULimits   = "limits.cpu"
	ColumnMemRequests = "requests.memory"
	ColumnMemLimits   = "limits.memory"
	// The usage columns of capacity --usage: the nodes' own usage, and their pods' summed.
	ColumnCPUUsage     = "usage.cpu"
	ColumnMemUsage     = "usage.memory"
	ColumnPodsCPUUsage = "pods.usage.cpu"
	ColumnPodsMemUsage = "pods.usage.memory"
	headerCPURequests  = "CPU REQUESTS"
	headerCPULimits    = "CPU LIMITS"
	headerMemRequests  = "MEMORY REQUESTS"
	headerMemLimits    = "MEMORY LIMITS"
)

// capacityResources are the resource columns of a capacity table, after PODS.
var capacityResources = []capacityResource{
	{ColumnCPURequests, headerCPURequests, corev1.ResourceCPU, false},
	{ColumnCPULimits, headerCPULimits, corev1.ResourceCPU, true},
	{ColumnMemRequests, headerMemRequests, corev1.ResourceMemory, false},
	{ColumnMemLimits, headerMemLimits, corev1.ResourceMemory, true},
}

// CapacityOptions says which nodes a capacity table covers and how it groups them.
type CapacityOptions struct {
	// Nodes are the cluster's nodes, read for their names, labels and status.allocatable
	// (status.capacity when allocatable is empty, as kubectl describe node does).
	Nodes []*corev1.Node
	// NodesKnown is false when the nodes could not be listed (no permission): the table then has
	// a row per node that has pods, and every percentage is unknown.
	NodesKnown bool
	// GroupBy names the group column when nodes are added up by a node's value ("zone"); empty
	// for a row per node.
	GroupBy string
	// GroupValue returns a node's value for GroupBy, such as a label ([NodeLabel]); "" puts the
	// node in the group printed [NoValue].
	GroupValue func(*corev1.Node) string
	// Sums are more columns after the built-in ones (capacity --sum): requests.RESOURCE and
	// limits.RESOURCE measures ("requests.nvidia.com/gpu"), each a share of the allocatable of
	// its resource. Other measures, those of the built-in columns, and globs not expanded
	// ([ExpandGlobs]) are an error.
	Sums []Measure
	// Resources are resources given three columns each after Sums (capacity --resource), named
	// RESOURCE.requested, RESOURCE.allocatable and RESOURCE.free: the pods' requests as the
	// scheduler counts them, the nodes' allocatable, and allocatable minus requested. A node
	// without the resource has an allocatable of 0, not a blank; where the allocatable is unknown
	// (nodes not listed, a node gone) allocatable and free are blank.
	Resources []corev1.ResourceName
	// UsageColumns adds, after the requests and limits, four shares of allocatable from the
	// metrics API's Usage: usage.cpu and usage.memory, the node's own usage (NodeMetrics: all
	// that runs on the node, as its kubelet reports it; kube-capacity --util's node rows), and
	// pods.usage.cpu and pods.usage.memory, the summed usage of the node's pods (PodMetrics, the
	// containers summed; kube-capacity --util's pod rows, added up). CPU is in whole millicores,
	// rounded up as kube-capacity and kubectl top print it, after summing. A group's and the
	// totals row's usage add up their nodes'. Without Usage (no metrics API) the cells are blank.
	UsageColumns bool
	// Usage is the metrics API's samples; the pods' usage is summed by [AllocationByNode].
	Usage *usage.Snapshot
}

// Column suffixes of the three columns of a capacity --resource.
const (
	SuffixRequested   = ".requested"
	SuffixAllocatable = ".allocatable"
	SuffixFree        = ".free"
)

// NodeLabel returns a GroupValue reading the node label key, e.g. corev1.LabelTopologyZone
// ("topology.kubernetes.io/zone") or corev1.LabelInstanceTypeStable
// ("node.kubernetes.io/instance-type").
func NodeLabel(key string) func(*corev1.Node) string {
	return func(n *corev1.Node) string { return n.Labels[key] }
}

// capacityRow is one row being summed: a node or a group of nodes.
type capacityRow struct {
	name        string
	nodes       int64
	known       bool // allocatable is known: the row's nodes were listed
	allocatable corev1.ResourceList
	alloc       NodeAllocation
	nodeUsage   corev1.ResourceList // the nodes' own usage, summed
}

// Capacity returns the capacity table of the nodes in opts with what its pods hold: per node (or per
// group of nodes), the pods as count/allocatable, and CPU and memory requests and limits, each as
// a quantity and a percentage of allocatable (see [Value.Percent]), with a totals row. Limits can
// pass 100% (overcommitted). Nodes come in natural order of name (or group value).
//
// Pods bound to a node that is not in opts.Nodes (deleted since) are a row of that node's name
// with an unknown allocatable, or fall in the group with no value when grouping. Without nodes
// (NodesKnown false) grouping is an error, since a node's labels are unknown. The totals row adds
// up every pod and the allocatable of the listed nodes.
func Capacity(pods *AllocationByNode, opts CapacityOptions) (Table, error) {
	grouped := opts.GroupBy != ""
	if grouped && opts.GroupValue == nil {
		return Table{}, fmt.Errorf("capacity: grouping by %s needs a GroupValue", opts.GroupBy)
	}
	if grouped && !opts.NodesKnown {
		return Table{}, fmt.Errorf("--group-by %s needs the nodes, which could not be listed", opts.GroupBy)
	}
	if pods == nil {
		pods = NewAllocationByNode()
	}
	resources, err := capacityColumns(opts.Sums)
	if err != nil {
		return Table{}, err
	}

	rows := map[string]*capacityRow{}
	rowOf := func(name string) *capacityRow {
		r, ok := rows[name]
		if !ok {
			r = &capacityRow{name: name, allocatable: corev1.ResourceList{}, nodeUsage: corev1.ResourceList{},
				alloc: NodeAllocation{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}, PodsUsage: corev1.ResourceList{}}}
			rows[name] = r
		}
		return r
	}
	total := &capacityRow{name: TotalLabel, known: opts.NodesKnown, allocatable: corev1.ResourceList{}, nodeUsage: corev1.ResourceList{},
		alloc: NodeAllocation{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}, PodsUsage: corev1.ResourceList{}}}

	listed := map[string]bool{}
	if opts.NodesKnown {
		for _, n := range opts.Nodes {
			if n == nil || listed[n.Name] {
				continue
			}
			listed[n.Name] = true
			name := n.Name
			if grouped {
				name = opts.GroupValue(n)
			}
			r := rowOf(name)
			r.nodes++
			r.known = true
			nodeAllocatable := allocatable(n)
			addResourceList(r.allocatable, nodeAllocatable)
			addResourceList(total.allocatable, nodeAllocatable)
			total.nodes++
			if sample, ok := opts.Usage.Node(n.Name); ok {
				addResourceList(r.nodeUsage, sample.Usage)
				addResourceList(total.nodeUsage, sample.Usage)
			}
			if u := pods.Nodes[n.Name]; u != nil {
				r.add(u)
			}
		}
	}
	for name, u := range pods.Nodes {
		total.add(u)
		if listed[name] {
			continue
		}
		if grouped {
			name = ""
		}
		// A node that is not listed has an unknown allocatable; a group keeps the allocatable
		// of its listed nodes.
		rowOf(name).add(u)
	}

	t := Table{}
	first := ColumnNode
	if grouped {
		first = opts.GroupBy
	}
	t.Columns = append(t.Columns, first)
	if grouped {
		t.Columns = append(t.Columns, ColumnNodes)
	}
	t.Columns = append(t.Columns, ColumnPods)
	t.Headers = make([]string, len(t.Columns), len(t.Columns)+len(resources))
	for _, c := range resources {
		t.Columns = append(t.Columns, c.column)
		t.Headers = append(t.Headers, c.header)
	}
	if opts.UsageColumns {
		t.Columns = append(t.Columns, ColumnCPUUsage, ColumnMemUsage, ColumnPodsCPUUsage, ColumnPodsMemUsage)
		t.Headers = append(t.Headers, "CPU USAGE", "MEMORY USAGE", "PODS CPU USAGE", "PODS MEMORY USAGE")
	}
	for _, r := range opts.Resources {
		for _, suffix := range []string{SuffixRequested, SuffixAllocatable, SuffixFree} {
			t.Columns = append(t.Columns, string(r)+suffix)
			t.Headers = append(t.Headers, strings.ToUpper(string(r)+" "+suffix[1:]))
		}
	}

	names := make([]string, 0, len(rows))
	for name := range rows {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return CompareNatural(names[i], names[j]) < 0 })
	for _, name := range names {
		t.Rows = append(t.Rows, rows[name].cells(grouped, resources, opts))
	}
	t.Total = total.cells(grouped, resources, opts)
	return t, nil
}

// capacityResource is one resource column of a capacity table.
type capacityResource struct {
	column, header string
	name           corev1.ResourceName
	limits         bool
}

// capacityColumns returns the built-in resource columns followed by one per measure of sums.
func capacityColumns(sums []Measure) ([]capacityResource, error) {
	columns := append([]capacityResource(nil), capacityResources...)
	for _, m := range sums {
		if m.glob {
			return nil, globError(m)
		}
		if m.kind != measureRequests && m.kind != measureLimits {
			return nil, fmt.Errorf("%s %s: capacity sums requests.RESOURCE and limits.RESOURCE only", sumFlag, m.Name)
		}
		for _, c := range columns {
			if c.column == m.Name {
				return nil, fmt.Errorf("%s %s: capacity has that column already", sumFlag, m.Name)
			}
		}
		columns = append(columns, capacityResource{column: m.Name, header: strings.ToUpper(m.Name),
			name: m.Resource, limits: m.kind == measureLimits})
	}
	return columns, nil
}

// allocatable is the node's status.allocatable, or status.capacity when allocatable is empty.
func allocatable(n *corev1.Node) corev1.ResourceList {
	if len(n.Status.Allocatable) > 0 {
		return n.Status.Allocatable
	}
	return n.Status.Capacity
}

// add adds one node's allocation to the row.
func (r *capacityRow) add(u *NodeAllocation) {
	r.alloc.Pods += u.Pods
	addResourceList(r.alloc.Requests, u.Requests)
	addResourceList(r.alloc.Limits, u.Limits)
	addResourceList(r.alloc.PodsUsage, u.PodsUsage)
}

// cells is the row's cells in the capacity table's column order.
func (r *capacityRow) cells(grouped bool, resources []capacityResource, opts CapacityOptions) []Value {
	row := []Value{Text(r.name)}
	if grouped {
		row = append(row, Count(r.nodes))
	}
	row = append(row, CountShare(r.alloc.Pods, r.allocatable[corev1.ResourcePods], r.known))
	for _, c := range resources {
		used := r.alloc.Requests
		if c.limits {
			used = r.alloc.Limits
		}
		row = append(row, Share(quantity(used, c.name), r.allocatable[c.name], r.known))
	}
	if opts.UsageColumns {
		row = append(row, r.usageCells(opts.Usage != nil)...)
	}
	for _, name := range opts.Resources {
		requested := quantity(r.alloc.Requests, name)
		if !r.known {
			row = append(row, Quantity(requested), Value{}, Value{})
			continue
		}
		alloc := quantity(r.allocatable, name)
		free := alloc.DeepCopy()
		free.Sub(requested)
		row = append(row, Quantity(requested), Quantity(alloc), Quantity(free))
	}
	return row
}

// usageCells are the row's usage columns: its nodes' own cpu and memory, then its pods'; blank
// when the metrics API was not read (known false).
func (r *capacityRow) usageCells(known bool) []Value {
	cells := make([]Value, 0, 4)
	for _, used := range []corev1.ResourceList{r.nodeUsage, r.alloc.PodsUsage} {
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if !known {
				cells = append(cells, Value{})
				continue
			}
			q := quantity(used, name)
			if name == corev1.ResourceCPU {
				q = *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)
			}
			cells = append(cells, Share(q, r.allocatable[name], r.known))
		}
	}
	return cells
}

// quantity is a copy of list[name], zero when absent; a zero quantity of cpu prints "0".
func quantity(list corev1.ResourceList, name corev1.ResourceName) resource.Quantity {
	return list[name].DeepCopy()
}
