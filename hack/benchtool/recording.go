package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// The recording step's busy hour, over the offline step's pods (realPod):
// half of the Deployments roll out a new image, one after another; a few
// pods' containers restart; an operator labels the pods of two
// Deployments and takes the label off again; a controller annotates the
// pods of four Deployments.
const (
	busyHour          = time.Hour
	busyRollouts      = offlineDeployments / 2 // Deployments rolled out
	busyRolloutTime   = 4 * time.Minute        // one Deployment's rollout
	busyRestartEvery  = 100                    // one pod in this many restarts once
	busyLabelDeploys  = 2                      // Deployments whose pods get a label, then lose it
	busyAnnotDeploys  = 4                      // Deployments whose pods a controller annotates
	recordFlushPeriod = 250 * time.Millisecond // as record flushes (pkg/plugin recordFlushDelay)
)

// busyStart is when the hour begins.
var busyStart = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// busyChange is one change of the hour, before it is applied.
type busyChange struct {
	at   time.Duration // from busyStart
	pod  int           // the pod slot (realPod's i)
	what string        // see apply
	seq  int           // the order of changes at the same instant
}

// recordingResult is the recording step's figures.
type recordingResult struct {
	pods     int
	changes  map[string]int // by kind of change
	events   map[watch.EventType]int
	initial  int
	objects  int   // distinct objects (keys) recorded
	flushes  int   // sync flushes, as record would have made them
	file     int64 // the recording's size on disk
	once     int64 // every object recorded, once, at its last state, as JSON
	onceGz   int64 // the same gzipped
	whole    int64 // every event's whole object as NDJSON
	wholeGz  int64 // the same gzipped
	end      int64 // the objects that exist at the end, as JSON
	genCPU   time.Duration
	writeCPU time.Duration // CPU of the writer alone: the writing pass less the generating one
	wall     time.Duration // the writing pass
	load     float64
}

// busyPlan is the hour's changes in time order.
func busyPlan(pods int) []busyChange {
	var plan []busyChange
	add := func(at time.Duration, pod int, what string) {
		plan = append(plan, busyChange{at: at, pod: pod, what: what, seq: len(plan)})
	}
	perDeploy := pods / offlineDeployments
	slot := busyHour / time.Duration(busyRollouts+1)
	for d := range busyRollouts {
		start := slot/2 + time.Duration(d)*slot
		for j := range perDeploy {
			i := d + j*offlineDeployments
			t := start + time.Duration(j)*busyRolloutTime/time.Duration(perDeploy)
			// The new pod: created by the ReplicaSet, bound by the
			// scheduler, then the kubelet's status as it starts.
			add(t, i, "create")
			add(t+40*time.Millisecond, i, "schedule")
			add(t+1*time.Second, i, "containerCreating")
			add(t+3*time.Second, i, "running")
			add(t+8*time.Second, i, "ready")
			// The old pod: marked for deletion once the new one is
			// ready, its containers stopped, then removed.
			add(t+8*time.Second+100*time.Millisecond, i, "terminate")
			add(t+10*time.Second, i, "stopped")
			add(t+12*time.Second, i, "delete")
		}
	}
	// The Deployments not rolled out: restarts, labels, annotations.
	for i := range pods {
		d := i % offlineDeployments
		if d < busyRollouts {
			continue
		}
		j := i / offlineDeployments
		if i%busyRestartEvery == busyRestartEvery/2 {
			t := time.Duration(hash64("restart/"+strconv.Itoa(i)) % uint64(busyHour-time.Minute))
			add(t, i, "crashed")
			add(t+15*time.Second, i, "restarted")
		}
		if d >= offlineDeployments-busyLabelDeploys {
			add(20*time.Minute+time.Duration(j)*100*time.Millisecond, i, "label")
			add(40*time.Minute+time.Duration(j)*100*time.Millisecond, i, "unlabel")
		}
		if d >= busyRollouts && d < busyRollouts+busyAnnotDeploys {
			add(30*time.Minute+time.Duration(j)*50*time.Millisecond, i, "annotate")
		}
	}
	sort.SliceStable(plan, func(a, b int) bool {
		if plan[a].at != plan[b].at {
			return plan[a].at < plan[b].at
		}
		return plan[a].seq < plan[b].seq
	})
	return plan
}

// busyState is the pods during the hour.
type busyState struct {
	pods  int
	old   map[int]*corev1.Pod // the pods of the initial state still there
	fresh map[int]*corev1.Pod // the pods rollouts created
	rv    int64
}

// setManager sets pod's managedFields entry for manager (Update,
// subresource sub): its time, and as the fields it owns those of content
// at paths (dot-separated).
func setManager(pod *corev1.Pod, manager, sub string, at time.Time, content map[string]interface{}, paths ...string) {
	owned := map[string]interface{}{}
	for _, p := range paths {
		parts := strings.Split(p, ".")
		v, ok, _ := unstructured.NestedFieldNoCopy(content, parts...)
		if !ok {
			continue
		}
		m := owned
		for _, part := range parts[:len(parts)-1] {
			next, _ := m["f:"+part].(map[string]interface{})
			if next == nil {
				next = map[string]interface{}{}
				m["f:"+part] = next
			}
			m = next
		}
		m["f:"+parts[len(parts)-1]] = fieldsOf(v)
	}
	raw, _ := json.Marshal(owned)
	entry := metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		Time: &metav1.Time{Time: at}, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(raw)), Subresource: sub}
	for k, e := range pod.ManagedFields {
		if e.Manager == manager && e.Subresource == sub {
			pod.ManagedFields[k] = entry
			return
		}
	}
	pod.ManagedFields = append(pod.ManagedFields, entry)
}

// fieldsOf is the FieldsV1 set of a value: each key of a map, each item of
// a list of maps by its key field, as the API server writes them.
func fieldsOf(v interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	switch v := v.(type) {
	case map[string]interface{}:
		out["."] = map[string]interface{}{}
		for k, e := range v {
			out["f:"+k] = fieldsOf(e)
		}
		if len(v) == 0 {
			return map[string]interface{}{}
		}
	case []interface{}:
		for _, item := range v {
			m, ok := item.(map[string]interface{})
			if !ok {
				return map[string]interface{}{}
			}
			var k string
			for _, field := range []string{"name", "type", "ip", "uid", "key", "containerPort"} {
				if kv, ok := m[field]; ok {
					b, _ := json.Marshal(map[string]interface{}{field: kv})
					k = "k:" + string(b)
					break
				}
			}
			if k == "" {
				return map[string]interface{}{}
			}
			out[k] = fieldsOf(m)
		}
	}
	return out
}

// ownership stamps the managers of a pod as the API server would after
// the ReplicaSet created it, the scheduler bound it and the kubelet
// reported its status.
func ownership(pod *corev1.Pod, at time.Time, kubelet bool) {
	content, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	setManager(pod, "kube-controller-manager", "", pod.CreationTimestamp.Time, content,
		"metadata.generateName", "metadata.labels", "metadata.annotations", "metadata.ownerReferences",
		"spec.containers", "spec.dnsPolicy", "spec.enableServiceLinks", "spec.restartPolicy", "spec.schedulerName",
		"spec.securityContext", "spec.terminationGracePeriodSeconds")
	if kubelet {
		setManager(pod, "kubelet", "status", at, content, "status.conditions", "status.containerStatuses", "status.hostIP",
			"status.hostIPs", "status.phase", "status.podIP", "status.podIPs", "status.startTime")
	}
}

// newPod is the pod a rollout creates in pod slot i: the same Deployment's
// pod of the new ReplicaSet (another image, another template hash), not
// yet scheduled.
func newPod(i int, at time.Time) *corev1.Pod {
	pod := realPod(i)
	old := pod.Labels["pod-template-hash"]
	hash := suffix(hash64(old+"/rollout"), 10)
	rs := strings.TrimSuffix(pod.OwnerReferences[0].Name, old) + hash
	pod.Name = rs + "-" + suffix(hash64("new/"+strconv.Itoa(i)), 5)
	pod.GenerateName = rs + "-"
	pod.UID = uid(pod.Namespace + "/" + pod.Name)
	pod.Labels["pod-template-hash"] = hash
	pod.OwnerReferences[0].Name, pod.OwnerReferences[0].UID = rs, uid(pod.Namespace+"/"+rs)
	c := &pod.Spec.Containers[0]
	c.Image = strings.Replace(c.Image, ":1.", ":2.", 1)
	pod.CreationTimestamp = metav1.NewTime(at)
	pod.Spec.NodeName = ""
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBurstable}
	ownership(pod, at, false)
	return pod
}

func condition(pod *corev1.Pod, t corev1.PodConditionType, status corev1.ConditionStatus, at time.Time) {
	for k := range pod.Status.Conditions {
		if pod.Status.Conditions[k].Type == t {
			if pod.Status.Conditions[k].Status != status {
				pod.Status.Conditions[k].Status = status
				pod.Status.Conditions[k].LastTransitionTime = metav1.NewTime(at)
			}
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: t, Status: status, LastTransitionTime: metav1.NewTime(at)})
}

// apply makes change c at its time and returns the event it makes.
func (s *busyState) apply(c busyChange) (watch.EventType, *corev1.Pod) {
	at := busyStart.Add(c.at)
	s.rv++
	var pod *corev1.Pod
	t := watch.Modified
	switch c.what {
	case "create":
		pod = newPod(c.pod, at)
		s.fresh[c.pod] = pod
		t = watch.Added
	case "schedule", "containerCreating", "running", "ready":
		pod = s.fresh[c.pod]
		st := &pod.Status
		switch c.what {
		case "schedule":
			pod.Spec.NodeName = offlineNode(c.pod)
			condition(pod, corev1.PodScheduled, corev1.ConditionTrue, at)
			content, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
			setManager(pod, "kube-scheduler", "status", at, content, "status.conditions")
		case "containerCreating":
			old := s.old[c.pod]
			st.HostIP, st.HostIPs = old.Status.HostIP, old.Status.HostIPs
			st.StartTime = &metav1.Time{Time: at}
			for _, ct := range []corev1.PodConditionType{"PodReadyToStartContainers", corev1.PodReady, corev1.ContainersReady} {
				condition(pod, ct, corev1.ConditionFalse, at)
			}
			condition(pod, corev1.PodInitialized, corev1.ConditionTrue, at)
			c0 := pod.Spec.Containers[0]
			st.ContainerStatuses = []corev1.ContainerStatus{{Name: c0.Name, Image: c0.Image,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}
		case "running":
			old := s.old[c.pod]
			// Another address on the same node.
			st.Phase, st.PodIP = corev1.PodRunning, strings.Replace(old.Status.PodIP, "10.", "10.1", 1)
			st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
			condition(pod, "PodReadyToStartContainers", corev1.ConditionTrue, at)
			started := true
			st.ContainerStatuses[0].State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(at)}}
			st.ContainerStatuses[0].Started = &started
			st.ContainerStatuses[0].ImageID = "registry.example.com/shop@sha256:" + fmt.Sprintf("%016x%016x%016x%016x", hash64(pod.Name), hash64(pod.Name+"1"), hash64(pod.Name+"2"), hash64(pod.Name+"3"))
			st.ContainerStatuses[0].ContainerID = "containerd://" + fmt.Sprintf("%016x%016x%016x%016x", hash64(pod.Name+"c"), hash64(pod.Name+"c1"), hash64(pod.Name+"c2"), hash64(pod.Name+"c3"))
		case "ready":
			condition(pod, corev1.PodReady, corev1.ConditionTrue, at)
			condition(pod, corev1.ContainersReady, corev1.ConditionTrue, at)
			st.ContainerStatuses[0].Ready = true
		}
		if c.what != "schedule" {
			ownership(pod, at, true)
		}
	case "terminate":
		pod = s.old[c.pod]
		grace := int64(30)
		pod.DeletionTimestamp, pod.DeletionGracePeriodSeconds = &metav1.Time{Time: at.Add(30 * time.Second)}, &grace
	case "stopped":
		pod = s.old[c.pod]
		condition(pod, corev1.PodReady, corev1.ConditionFalse, at)
		condition(pod, corev1.ContainersReady, corev1.ConditionFalse, at)
		cs := &pod.Status.ContainerStatuses[0]
		cs.Ready = false
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
			StartedAt: pod.Status.StartTime.Rfc3339Copy(), FinishedAt: metav1.NewTime(at)}}
		ownership(pod, at, true)
	case "delete":
		pod = s.old[c.pod]
		delete(s.old, c.pod)
		t = watch.Deleted
	case "crashed", "restarted":
		pod = s.old[c.pod]
		cs := &pod.Status.ContainerStatuses[0]
		if c.what == "crashed" {
			condition(pod, corev1.PodReady, corev1.ConditionFalse, at)
			condition(pod, corev1.ContainersReady, corev1.ConditionFalse, at)
			cs.Ready = false
			cs.RestartCount++
			cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled",
				StartedAt: cs.State.Running.StartedAt, FinishedAt: metav1.NewTime(at)}}
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(at.Add(time.Second))}}
		} else {
			condition(pod, corev1.PodReady, corev1.ConditionTrue, at)
			condition(pod, corev1.ContainersReady, corev1.ConditionTrue, at)
			cs.Ready = true
		}
		ownership(pod, at, true)
	case "label", "unlabel":
		pod = s.old[c.pod]
		if c.what == "label" {
			pod.Labels["example.com/canary"] = "true"
		} else {
			delete(pod.Labels, "example.com/canary")
		}
		content := map[string]interface{}{"metadata": map[string]interface{}{"labels": map[string]interface{}{}}}
		if c.what == "label" {
			content["metadata"] = map[string]interface{}{"labels": map[string]interface{}{"example.com/canary": "true"}}
		}
		setManager(pod, "kubectl-label", "", at, content, "metadata.labels")
	case "annotate":
		pod = s.old[c.pod]
		annotations := map[string]string{"example.com/last-backup": at.Format(time.RFC3339)}
		for k, v := range pod.Annotations {
			annotations[k] = v
		}
		pod.Annotations = annotations
		content, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
		setManager(pod, "backup-controller", "", at, content, "metadata.annotations")
	default:
		panic("unknown change " + c.what)
	}
	if t != watch.Deleted {
		pod.ResourceVersion = strconv.FormatInt(s.rv, 10)
	}
	return t, pod
}

// newBusyState is the state at the start of the hour: the offline step's
// pods with the managers that made them.
func newBusyState(pods int) *busyState {
	s := &busyState{pods: pods, old: map[int]*corev1.Pod{}, fresh: map[int]*corev1.Pod{}, rv: 200000}
	for i := range pods {
		p := realPod(i)
		ownership(p, p.Status.StartTime.Time, true)
		s.old[i] = p
	}
	return s
}

// busyEvents calls fn with each event of the hour, the initial state
// first; fn gets the object as record's writer gets it.
func busyEvents(pods int, plan []busyChange, fn func(ev recording.Event) error) error {
	s := newBusyState(pods)
	for i := range pods {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s.old[i])
		if err != nil {
			return err
		}
		if err := fn(recording.Event{Time: busyStart, Type: watch.Added, Initial: true, Object: &unstructured.Unstructured{Object: content}}); err != nil {
			return err
		}
	}
	for _, c := range plan {
		t, pod := s.apply(c)
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
		if err != nil {
			return err
		}
		if err := fn(recording.Event{Time: busyStart.Add(c.at), Type: t, Object: &unstructured.Unstructured{Object: content}}); err != nil {
			return err
		}
	}
	return nil
}

// cpuNow is the process's CPU time so far (user+system).
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// recording writes the busy hour through pkg/recording's Writer, flushed
// as record flushes, and measures it against the objects it holds.
func (b *bench) recording() error {
	o := &recordingResult{pods: b.recordingPods, changes: map[string]int{}, events: map[watch.EventType]int{}, load: loadavg1()}
	plan := busyPlan(o.pods)
	for _, c := range plan {
		o.changes[c.what]++
	}
	b.logf("recording: a busy hour of %d pods, %d changes", o.pods, len(plan))

	// The generating pass alone, for the CPU the writer's pass spends
	// beside the writer.
	began := cpuNow()
	if err := busyEvents(o.pods, plan, func(recording.Event) error { return nil }); err != nil {
		return err
	}
	o.genCPU = cpuNow() - began

	path := filepath.Join(b.workDir, "busy-hour.rec")
	defer os.Remove(path)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := recording.Header{Started: busyStart, Server: "https://bench.invalid", Types: []recording.Type{{
		Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, Singular: "pod", ShortNames: []string{"po"}, BuiltIn: true}}}
	// NewWriter over the file writes the bytes record's recording.Create
	// writes; Create also syncs the file at each flush, which is disk
	// time, not the writer's CPU.
	w, err := recording.NewWriter(f, h)
	if err != nil {
		return err
	}
	var lastFlush time.Time
	dirty := false
	flush := func(at time.Time) error {
		o.flushes++
		dirty, lastFlush = false, at
		return w.Flush()
	}
	wallBegan := time.Now()
	began = cpuNow()
	err = busyEvents(o.pods, plan, func(ev recording.Event) error {
		// record flushes a written event at most recordFlushPeriod
		// later: pending events are flushed before one that comes later.
		if dirty && ev.Time.Sub(lastFlush) >= recordFlushPeriod {
			if err := flush(lastFlush.Add(recordFlushPeriod)); err != nil {
				return err
			}
		}
		if err := w.Write(ev); err != nil {
			return err
		}
		dirty = true
		if ev.Time.Sub(lastFlush) >= recordFlushPeriod {
			return flush(ev.Time)
		}
		return nil
	})
	if err == nil {
		err = w.Close()
	}
	o.writeCPU = cpuNow() - began - o.genCPU
	o.wall = time.Since(wallBegan)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	o.file = st.Size()
	o.objects = w.Objects()

	// What the recording holds, whole: every event's object, and every
	// object once at its last state.
	whole, wholeGz := &countWriter{}, &countWriter{}
	gz := gzip.NewWriter(wholeGz)
	last := map[string][]byte{}
	var order []string
	err = busyEvents(o.pods, plan, func(ev recording.Event) error {
		data, err := json.Marshal(ev.Object.Object)
		if err != nil {
			return err
		}
		data = append(data, '\n')
		whole.n += int64(len(data))
		if _, err := gz.Write(data); err != nil {
			return err
		}
		if ev.Initial {
			o.initial++
		}
		o.events[ev.Type]++
		k := ev.Object.GetNamespace() + "/" + ev.Object.GetName()
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		if ev.Type == watch.Deleted {
			last[k] = append([]byte("-"), data...)
		} else {
			last[k] = data
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	o.whole, o.wholeGz = whole.n, wholeGz.n
	onceGz := &countWriter{}
	gz = gzip.NewWriter(onceGz)
	for _, k := range order {
		data := last[k]
		if data[0] == '-' {
			data = data[1:]
		} else {
			o.end += int64(len(data))
		}
		o.once += int64(len(data))
		if _, err := gz.Write(data); err != nil {
			return err
		}
	}
	if err := gz.Close(); err != nil {
		return err
	}
	o.onceGz = onceGz.n
	b.rep.recording = o
	b.logf("recording: %d events, %d bytes on disk, %.0f µs of writer CPU per event", o.totalEvents(), o.file, o.perEvent().Seconds()*1e6)
	return nil
}

func (o *recordingResult) totalEvents() int {
	n := 0
	for _, c := range o.events {
		n += c
	}
	return n
}

func (o *recordingResult) perEvent() time.Duration {
	if n := o.totalEvents(); n > 0 {
		return o.writeCPU / time.Duration(n)
	}
	return 0
}

var _ io.Writer = (*countWriter)(nil)

// recordingSection is the report's "Recording" section.
func (r *report) recordingSection() string {
	o := r.recording
	if o == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	mb := func(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }
	live := o.totalEvents() - o.initial
	p("## Recording: a busy hour of %d pods\n\n", o.pods)
	p("`hack/benchtool` generates the hour (no cluster) and writes it through `pkg/recording`'s Writer as `kubectl informer record pods -A` writes: whole objects as the watch sends them (managedFields included), the initial list first, then each event at its time, with a sync flush of the gzip stream whenever %s have passed since the last, as `record` flushes (the file's fsync at each flush, which `record` also does, is left out: it is disk time, not the writer's). ", recordFlushPeriod)
	p("The pods are the offline step's (realistic Deployment pods, Running and Ready on 60 nodes), each with the managedFields entries the API server keeps for them (kube-controller-manager's create, the kubelet's status; the scheduler's for new pods). The hour, %d events after the %d pods of the initial state:\n\n", live, o.initial)
	p("- **rollouts**: %d of the %d Deployments roll out a new image one after another (a new ReplicaSet, one pod replaced at a time over %s each): each new pod is created (%d), bound by the scheduler (%d), and gets the kubelet's status three times as its container is created, runs and turns Ready (%d, %d, %d); each old pod is then marked for deletion (%d), gets its stopped status (%d) and is deleted (%d);\n",
		busyRollouts, offlineDeployments, busyRolloutTime, o.changes["create"], o.changes["schedule"], o.changes["containerCreating"], o.changes["running"], o.changes["ready"], o.changes["terminate"], o.changes["stopped"], o.changes["delete"])
	p("- **restarts**: one pod in %d of the other Deployments is OOM-killed once (restartCount, lastState, not Ready: %d) and is Ready again 15 s later (%d);\n", busyRestartEvery, o.changes["crashed"], o.changes["restarted"])
	p("- **labels**: an operator labels the pods of %d Deployments `example.com/canary=true` at minute 20 (%d) and takes the label off at minute 40 (%d);\n", busyLabelDeploys, o.changes["label"], o.changes["unlabel"])
	p("- **annotations**: a controller stamps `example.com/last-backup` on the pods of %d Deployments at minute 30 (%d);\n", busyAnnotDeploys, o.changes["annotate"])
	p("- every change bumps the pod's resourceVersion and the time of its manager's managedFields entry, as the API server does.\n\n")
	p("The hour scales with the pods (BENCH_RECORDING_PODS, %d by default to keep the step near a minute: generating and writing take about 1 ms of CPU per event): every count above is per pod, so the ratios below hardly move with it. ", 2000)
	p("Why this is a busy hour: a rollout replaces every pod of half the workloads (a release day), and each replaced pod makes the 8 watch events a pod's life makes on a real cluster; restarts, relabelling and a controller's annotations are the changes that come besides. It is %d events in the hour (%.1f per second), %.1f per pod of the initial state.\n\n", live, float64(live)/busyHour.Seconds(), float64(live)/float64(o.initial))
	p("| | bytes | the recording / this |\n| --- | --- | --- |\n")
	p("| **the recording** (`.rec` on disk: %d events of %d objects, %d sync flushes) | %s | 1.00× |\n", o.totalEvents(), o.objects, o.flushes, mb(o.file))
	p("| the objects it holds, each once at its last state, as JSON | %s | %.2f× |\n", mb(o.once), float64(o.file)/float64(o.once))
	p("| the same gzipped | %s | %.2f× |\n", mb(o.onceGz), float64(o.file)/float64(o.onceGz))
	p("| the objects that exist at the end of the hour, as JSON (a dump taken then) | %s | %.2f× |\n", mb(o.end), float64(o.file)/float64(o.end))
	p("| every event's whole object as NDJSON (a recorder without patches or compression) | %s | %.3f× |\n", mb(o.whole), float64(o.file)/float64(o.whole))
	p("| the same gzipped (whole objects, compressed) | %s | %.2f× |\n\n", mb(o.wholeGz), float64(o.file)/float64(o.wholeGz))
	p("Target (issue 26): a busy hour's recording within a few × the size of the objects it holds: **%.2f×** the objects as JSON (%.2f× them gzipped). ", float64(o.file)/float64(o.once), float64(o.file)/float64(o.onceGz))
	p("Writer CPU: **%.0f µs per event** (%.2f s for %d events: the writing pass's CPU, %.2f s, less that of generating the same events without writing them, %.2f s; load %.2f when the step began); the writing pass took %.1f s wall.\n\n",
		o.perEvent().Seconds()*1e6, o.writeCPU.Seconds(), o.totalEvents(), (o.writeCPU + o.genCPU).Seconds(), o.genCPU.Seconds(), o.load, o.wall.Seconds())
	return s.String()
}
