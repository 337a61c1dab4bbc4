package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// benchPodDump returns n realistic pods: `benchtool dump`'s pods (the
// bench's offline dump, hack/benchtool realPod), read back from the file it
// writes. BENCH_POD_DUMP names an existing dump to read instead.
func benchPodDump(tb testing.TB, n int) []*corev1.Pod {
	tb.Helper()
	path := os.Getenv("BENCH_POD_DUMP")
	if path == "" {
		path = filepath.Join(tb.TempDir(), "pods.json")
		cmd := exec.Command("go", "run", "../../hack/benchtool", "dump", "--pods", strconv.Itoa(n), "--out", path)
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("benchtool dump: %v\n%s", err, out)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var list corev1.PodList
	if err := json.Unmarshal(data, &list); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(list.Items) < n {
		tb.Fatalf("%s holds %d pods, want at least %d", path, len(list.Items), n)
	}
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = &list.Items[i]
		pods[i].ManagedFields = serverManagedFields(tb, pods[i])
	}
	return pods
}

// serverManagedFields returns the managedFields the API server records for
// pod as a ReplicaSet's pod that kube-controller-manager created and kwok
// runs (the shape of testdata/deployment-pod.json's): kube-controller-manager
// owns the metadata and the pod template's fields, kwok the status through
// the status subresource.
func serverManagedFields(tb testing.TB, pod *corev1.Pod) []metav1.ManagedFieldsEntry {
	tb.Helper()
	obj := map[string]interface{}{}
	data, err := json.Marshal(pod)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		tb.Fatal(err)
	}
	md, spec := obj["metadata"].(map[string]interface{}), obj["spec"].(map[string]interface{})
	containers := spec["containers"].([]interface{})
	for _, c := range containers {
		delete(c.(map[string]interface{}), "volumeMounts") // added by admission
	}
	kcm := map[string]interface{}{
		"metadata": pick(md, "generateName", "labels", "annotations", "ownerReferences"),
		"spec": pick(spec, "containers", "dnsPolicy", "enableServiceLinks", "restartPolicy", "schedulerName",
			"securityContext", "terminationGracePeriodSeconds"),
	}
	status := obj["status"].(map[string]interface{})
	kwok := map[string]interface{}{"status": pick(status, "conditions", "containerStatuses", "hostIP", "hostIPs", "phase", "podIP", "podIPs", "startTime")}
	at := metav1.NewTime(pod.CreationTimestamp.Time)
	entry := func(manager, subresource string, fields map[string]interface{}) metav1.ManagedFieldsEntry {
		raw, err := json.Marshal(fieldSet(fields, ""))
		if err != nil {
			tb.Fatal(err)
		}
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(raw)), Subresource: subresource}
	}
	return []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "", kcm), entry("kwok-v0.8.0", "status", kwok)}
}

func pick(m map[string]interface{}, keys ...string) map[string]interface{} {
	out := map[string]interface{}{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// listKeys are the keys of the pod's associative lists, by field name.
var listKeys = map[string][]string{
	"containers": {"name"}, "env": {"name"}, "ports": {"containerPort", "protocol"}, "conditions": {"type"},
	"podIPs": {"ip"}, "ownerReferences": {"uid"},
}

// atomicFields are the fields whose value the API server's schema makes atomic.
var atomicFields = map[string]bool{"containerStatuses": true, "hostIPs": true, "args": true}

// fieldSet is the fieldsV1 set of v, a field named name, as
// structured-merge-diff writes it.
func fieldSet(v interface{}, name string) map[string]interface{} {
	set := map[string]interface{}{}
	if atomicFields[name] {
		return set
	}
	switch v := v.(type) {
	case map[string]interface{}:
		for k, child := range v {
			set["f:"+k] = fieldSet(child, k)
		}
		if name != "" && name != "metadata" && name != "spec" && name != "status" && len(v) > 0 {
			set["."] = map[string]interface{}{}
		}
	case []interface{}:
		keys := listKeys[name]
		if keys == nil {
			return set
		}
		for _, item := range v {
			m := item.(map[string]interface{})
			sort.Strings(keys)
			key := map[string]interface{}{}
			for _, k := range keys {
				key[k] = m[k]
			}
			data, _ := json.Marshal(key)
			child := fieldSet(m, "item")
			set["k:"+string(data)] = child
		}
		if name == "ownerReferences" || name == "podIPs" {
			set["."] = map[string]interface{}{}
		}
	}
	return set
}

// warmIndexes are the indexes a warm cache of pods typically holds:
// client-go's namespace index and those of `--index node=…`,
// `--index label:app=…` and `--group-by phase`.
func warmIndexes(tb testing.TB) toolscache.Indexers {
	set, err := index.NewSet()
	if err != nil {
		tb.Fatal(err)
	}
	indexers := toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc}
	for _, name := range []string{"node", "label:app", "phase"} {
		def, err := set.Lookup(name)
		if err != nil {
			tb.Fatal(err)
		}
		indexers[def.Name] = def.Func
	}
	return indexers
}

func heapInUse() uint64 {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// ownStatusTimes moves pod's status times (start time, conditions' and
// containers' times) i seconds later, so that no two pods of a set moved
// by their index share a status: a cluster whose pods all started at
// different seconds, and whose kubelet names each container.
func ownStatusTimes(pod *corev1.Pod, i int) {
	later := func(t *metav1.Time) {
		if t != nil && !t.IsZero() {
			t.Time = t.Add(time.Duration(i) * time.Second)
		}
	}
	later(pod.Status.StartTime)
	for j := range pod.Status.Conditions {
		later(&pod.Status.Conditions[j].LastTransitionTime)
		later(&pod.Status.Conditions[j].LastProbeTime)
	}
	for j := range pod.Status.ContainerStatuses {
		s := &pod.Status.ContainerStatuses[j]
		if s.State.Running != nil {
			later(&s.State.Running.StartedAt)
		}
		s.ContainerID = fmt.Sprintf("containerd://%064x", i*len(pod.Status.ContainerStatuses)+j)
	}
}

// BenchmarkWarmCacheBytesPerPod reports the heap a warm cache of pods holds
// per pod: BENCH_WARM_PODS (default 10,000) realistic pods, each decoded
// from protobuf as an informer receives it, through the engine's transform
// and into an indexer with a warm cache's indexes. The sub-benchmarks are
// the managedFields modes: queries drop them, watch interns them; and
// drop-own-times, the pods of drop given status times of their own and a
// container ID each (ownStatusTimes), where no status is shared.
// BENCH_WARM_HEAPPROFILE names a file for a heap profile of the store.
func BenchmarkWarmCacheBytesPerPod(b *testing.B) {
	n := 10000
	if s := os.Getenv("BENCH_WARM_PODS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatalf("BENCH_WARM_PODS: %v", err)
		}
	}
	if os.Getenv("BENCH_WARM_HEAPPROFILE") != "" {
		runtime.MemProfileRate = 1
	}
	pods := benchPodDump(b, n)
	marshal := func() [][]byte {
		wire := make([][]byte, n)
		for i, p := range pods {
			data, err := p.Marshal()
			if err != nil {
				b.Fatal(err)
			}
			wire[i] = data
		}
		return wire
	}
	wire := marshal()
	for i, p := range pods {
		ownStatusTimes(p, i)
	}
	ownTimesWire := marshal()
	pods = nil
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, mode := range []struct {
		name string
		mode ManagedFields
		wire [][]byte
	}{{"drop", DropManagedFields, wire}, {"intern", InternManagedFields, wire}, {"drop-own-times", DropManagedFields, ownTimesWire}} {
		b.Run(mode.name, func(b *testing.B) {
			var perPod float64
			for range b.N {
				before := heapInUse()
				store := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, warmIndexes(b))
				for _, data := range mode.wire {
					pod := &corev1.Pod{}
					if err := pod.Unmarshal(data); err != nil {
						b.Fatal(err)
					}
					if err := store.Add(engineTransform(pod, Typed, gvk, mode.mode, true)); err != nil {
						b.Fatal(err)
					}
				}
				after := heapInUse()
				perPod = float64(after-before) / float64(n)
				if path := os.Getenv("BENCH_WARM_HEAPPROFILE"); path != "" {
					writeHeapProfile(b, fmt.Sprintf("%s.%s", path, mode.name))
				}
				runtime.KeepAlive(store)
			}
			b.ReportMetric(perPod, "B/pod")
		})
	}
}

func writeHeapProfile(tb testing.TB, path string) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkInternObject is internObject's CPU per realistic pod, a fresh
// decode each time (the decode not timed).
func BenchmarkInternObject(b *testing.B) {
	pods := benchPodDump(b, 100)
	wire := make([][]byte, len(pods))
	for i, p := range pods {
		data, err := p.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		wire[i] = data
	}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		pod := &corev1.Pod{}
		if err := pod.Unmarshal(wire[i%len(wire)]); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		internObject(pod)
	}
}
