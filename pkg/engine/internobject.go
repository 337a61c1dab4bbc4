package engine

import (
	"hash/maphash"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"
	"weak"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// internObject makes obj, a typed object about to enter the cache, share
// with the other cached objects the strings and parts that repeat between
// objects: namespaces, label and annotation maps, owner references, and of
// pods node names, images, resource lists, probes, security contexts,
// tolerations, ports, env, volume sources, and the condition lists,
// container statuses and start times of pods started together (see
// internStatusValues). Only values are replaced, by
// deeply equal ones: obj marshals and compares as before. It changes obj in
// place, as the engine's transform may, and is idempotent: a second pass
// writes nothing. What it shares must never be mutated: the cache's objects
// are read-only. Unstructured objects are left as they are.
func internObject(obj interface{}) {
	m, ok := obj.(interface{ GetObjectMeta() metav1.Object })
	if !ok {
		return
	}
	if om, ok := m.GetObjectMeta().(*metav1.ObjectMeta); ok {
		internMeta(om)
	}
	if pod, ok := obj.(*corev1.Pod); ok {
		internPodSpec(&pod.Spec)
		internPodStatus(&pod.Status)
	}
}

// share replaces *s by the shared copy of its value (see strs). It writes
// nothing when *s is that copy already, so that interning an object again,
// as an idempotent transform may, never writes to a cached object.
func share[S ~string](s *S) {
	if *s == "" {
		return
	}
	shared := strs.intern(string(*s))
	if unsafe.StringData(shared) != unsafe.StringData(string(*s)) {
		*s = S(shared)
	}
}

// strs interns the strings internObject shares.
var strs = &stringInterner{seed: maphash.MakeSeed(), strs: map[uint64]weakString{}}

// stringInterner hands out one shared copy of each string for as long as a
// cached object holds it: the table refers to the copies' bytes weakly, by
// a hash of the string, and forgets a copy once the garbage collector has
// freed it. It is safe for concurrent use.
type stringInterner struct {
	mu   sync.Mutex
	seed maphash.Seed
	strs map[uint64]weakString
}

type weakString struct {
	data weak.Pointer[byte]
	n    int
}

// intern returns the shared copy of s, making it if there is none. A
// string whose hash is taken by another string is returned as it is.
func (in *stringInterner) intern(s string) string {
	h := maphash.String(in.seed, s)
	in.mu.Lock()
	defer in.mu.Unlock()
	if w, ok := in.strs[h]; ok {
		if p := w.data.Value(); p != nil {
			if w.n == len(s) && unsafe.String(p, w.n) == s {
				return unsafe.String(p, w.n)
			}
			return s
		}
	}
	// At least 16 bytes: the runtime batches smaller pointer-free
	// allocations together, which would keep a copy from being freed
	// while its neighbours live.
	buf := make([]byte, max(len(s), 16))
	copy(buf, s)
	p := &buf[0]
	in.strs[h] = weakString{data: weak.Make(p), n: len(s)}
	runtime.AddCleanup(p, in.forget, h)
	return unsafe.String(p, len(s))
}

// forget removes the entry of hash h once its copy is freed, unless a new
// copy took its place meanwhile.
func (in *stringInterner) forget(h uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if w, ok := in.strs[h]; ok && w.data.Value() == nil {
		delete(in.strs, h)
	}
}

func internMeta(om *metav1.ObjectMeta) {
	share(&om.Namespace)
	share(&om.GenerateName)
	stringMaps.intern(&om.Labels)
	stringMaps.intern(&om.Annotations)
	for i := range om.OwnerReferences {
		r := &om.OwnerReferences[i]
		share(&r.APIVersion)
		share(&r.Kind)
		share(&r.Name)
	}
	shareSlice(&om.OwnerReferences)
	for i := range om.ManagedFields {
		f := &om.ManagedFields[i]
		share(&f.Manager)
		share(&f.APIVersion)
		share(&f.FieldsType)
		share(&f.Subresource)
		sharePtrIn(statusValues, &f.Time)
	}
	internStrings(om.Finalizers)
}

func internStrings(s []string) {
	for i := range s {
		share(&s[i])
	}
}

func internPodSpec(spec *corev1.PodSpec) {
	share(&spec.NodeName)
	share(&spec.ServiceAccountName)
	share(&spec.DeprecatedServiceAccount)
	share(&spec.SchedulerName)
	share(&spec.PriorityClassName)
	share(&spec.RestartPolicy)
	share(&spec.DNSPolicy)
	stringMaps.intern(&spec.NodeSelector)
	for i := range spec.InitContainers {
		internContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		internContainer(&spec.Containers[i])
	}
	for i := range spec.Tolerations {
		t := &spec.Tolerations[i]
		share(&t.Key)
		share(&t.Value)
		share(&t.Operator)
		share(&t.Effect)
	}
	shareSlice(&spec.Tolerations)
	sharePtr(&spec.SecurityContext)
	sharePtr(&spec.Affinity)
	for i := range spec.Volumes {
		v := &spec.Volumes[i]
		if v.ConfigMap != nil {
			share(&v.ConfigMap.Name)
		}
		if v.Secret != nil {
			share(&v.Secret.SecretName)
		}
		if p := v.Projected; p != nil {
			for j := range p.Sources {
				s := &p.Sources[j]
				if s.ConfigMap != nil {
					share(&s.ConfigMap.Name)
				}
			}
			sharePtr(&v.Projected)
		}
		sharePtr(&v.ConfigMap)
		sharePtr(&v.Secret)
		sharePtr(&v.DownwardAPI)
		sharePtr(&v.EmptyDir)
	}
	internVolumeMountNames(spec)
}

func internContainer(c *corev1.Container) {
	share(&c.Name)
	share(&c.Image)
	share(&c.ImagePullPolicy)
	share(&c.TerminationMessagePath)
	share(&c.TerminationMessagePolicy)
	shareStrings(&c.Command)
	shareStrings(&c.Args)
	for i := range c.Ports {
		p := &c.Ports[i]
		share(&p.Name)
		share(&p.Protocol)
	}
	for i := range c.Env {
		e := &c.Env[i]
		share(&e.Name)
		share(&e.Value)
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			f := e.ValueFrom.FieldRef
			share(&f.APIVersion)
			share(&f.FieldPath)
		}
	}
	for i := range c.VolumeMounts {
		m := &c.VolumeMounts[i]
		share(&m.MountPath)
	}
	sharePtr(&c.ReadinessProbe)
	sharePtr(&c.LivenessProbe)
	sharePtr(&c.StartupProbe)
	sharePtr(&c.SecurityContext)
	shareSlice(&c.Ports)
	shareSlice(&c.Env)
	resourceLists.intern(&c.Resources.Limits)
	resourceLists.intern(&c.Resources.Requests)
}

func internPodStatus(st *corev1.PodStatus) {
	share(&st.Phase)
	share(&st.QOSClass)
	share(&st.HostIP)
	for i := range st.HostIPs {
		share(&st.HostIPs[i].IP)
	}
	shareSlice(&st.HostIPs)
	share(&st.Reason)
	for i := range st.Conditions {
		c := &st.Conditions[i]
		share(&c.Type)
		share(&c.Status)
		share(&c.Reason)
	}
	for _, statuses := range [][]corev1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses} {
		for i := range statuses {
			s := &statuses[i]
			share(&s.Name)
			share(&s.Image)
			share(&s.ImageID)
			if w := s.State.Waiting; w != nil {
				share(&w.Reason)
			}
			if t := s.State.Terminated; t != nil {
				share(&t.Reason)
			}
		}
	}
	internStatusValues(st)
}

// maxSharedMaps bounds each table of shared maps: the tables hold their
// maps strongly, so a table that fills up is emptied and starts over.
const maxSharedMaps = 4096

// mapInterner hands out one shared map per distinct content, from a table
// of at most maxSharedMaps maps. It is safe for concurrent use; the maps it
// returns must never be mutated.
type mapInterner[M ~map[K]V, K ~string, V any] struct {
	key  func(m M, keys []K) string
	mu   sync.Mutex
	maps map[string]M
}

// intern replaces *p by the shared map equal to it, or shares *p if there
// is none yet. It leaves nil and empty maps as they are, and writes nothing
// when *p is the shared map already.
func (in *mapInterner[M, K, V]) intern(p *M) {
	m := *p
	if len(m) == 0 {
		return
	}
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	key := in.key(m, keys)
	in.mu.Lock()
	defer in.mu.Unlock()
	if shared, ok := in.maps[key]; ok {
		if reflect.ValueOf(shared).UnsafePointer() != reflect.ValueOf(m).UnsafePointer() {
			*p = shared
		}
		return
	}
	if in.maps == nil || len(in.maps) >= maxSharedMaps {
		in.maps = map[string]M{}
	}
	in.maps[key] = m
}

// stringMaps shares label, annotation and node selector maps.
var stringMaps = &mapInterner[map[string]string, string, string]{key: func(m map[string]string, keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		writeField(&b, k)
		writeField(&b, m[k])
	}
	return b.String()
}}

// resourceLists shares resource lists (containers' requests and limits).
var resourceLists = &mapInterner[corev1.ResourceList, corev1.ResourceName, resource.Quantity]{key: func(m corev1.ResourceList, keys []corev1.ResourceName) string {
	var b strings.Builder
	for _, k := range keys {
		q := m[k]
		writeField(&b, string(k))
		writeField(&b, q.String())
		writeField(&b, string(q.Format))
	}
	return b.String()
}}

// writeField writes s length-prefixed, so that no two sequences of fields
// make the same key.
func writeField(b *strings.Builder, s string) {
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}
