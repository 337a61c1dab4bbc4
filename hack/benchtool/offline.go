package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// The offline step's dump: pods of offlineDeployments Deployments (the
// realistic step's, realDeployment) spread over offlineNodes nodes, as
// `kubectl get pods -A -o json` writes them once the Deployments have
// rolled out on kwok nodes.
const (
	offlineDeployments = 20
	offlineNodes       = 60
	offlineQueryNode   = "kwok-node-7"
)

// offlineResult is the offline step: `--from` a JSON dump beside a plain
// decode of the same file.
type offlineResult struct {
	pods      int
	fileBytes int64
	genTime   time.Duration
	byNode    int // pods on offlineQueryNode
	results   map[string]*result
	load      float64
	runs      int // rounds (BENCH_OFFLINE_RUNS)
}

// offlineNode is the node pod i runs on (from 1, as hack/cluster names
// them).
func offlineNode(i int) string { return fmt.Sprintf("kwok-node-%d", i%offlineNodes+1) }

// offline writes a dump of BENCH_OFFLINE_PODS pods and measures a query
// --from it beside the floors: decoding the file with encoding/json into
// interface{} values and into v1.Pods, and reading it.
func (b *bench) offline(ctx context.Context) error {
	path := filepath.Join(b.workDir, "offline-pods.json")
	b.logf("offline: writing a dump of %d pods to %s", b.offlinePods, path)
	began := time.Now()
	size, err := writePodDump(path, b.offlinePods)
	if err != nil {
		return err
	}
	o := &offlineResult{pods: b.offlinePods, fileBytes: size, genTime: time.Since(began), load: loadavg1()}
	defer os.Remove(path)
	for i := range b.offlinePods {
		if offlineNode(i) == offlineQueryNode {
			o.byNode++
		}
	}
	q := []string{"query", "pods", "-A", "--from", path, "--index", "node=" + offlineQueryNode, "-o", "name"}
	label := "query pods -A --from pods.json --index node=" + offlineQueryNode + " -o name"
	// No kubeconfig: KUBECONFIG names a file that does not exist.
	noCluster := []string{"KUBECONFIG=" + filepath.Join(b.workDir, "no-such-kubeconfig")}
	viaKubectl := b.kubectl("off-q", "kubectl informer "+label, append([]string{"informer"}, q...)...)
	direct := b.direct("off-q-direct", "kubectl-informer "+label+" (binary run directly)", q...)
	decode := benchCase{id: "off-decode", title: "jsondecode pods.json", argv: []string{b.jsondecode, path}}
	typed := benchCase{id: "off-decode-typed", title: "jsondecode --typed pods.json", argv: []string{b.jsondecode, "--typed", path}}
	read := benchCase{id: "off-read", title: "dd if=pods.json of=/dev/null bs=1M", argv: []string{"dd", "if=" + path, "of=/dev/null", "bs=1M", "status=none"}}
	viaKubectl.env, direct.env = noCluster, noCluster
	viaKubectl.check, direct.check = expectLines(o.byNode), expectLines(o.byNode)
	want := fmt.Sprintf("%d items", b.offlinePods)
	decode.check = func(out string) error {
		if strings.TrimSpace(out) != want {
			return fmt.Errorf("expected %q, got %q", want, strings.TrimSpace(out))
		}
		return nil
	}
	typed.check = decode.check
	// No warm-up: no discovery cache to fill, and the file was just
	// written, so it is in the page cache already.
	o.runs = b.offlineRuns
	if o.results, err = b.measureRounds(ctx, []benchCase{viaKubectl, direct, decode, typed, read}, o.runs, false); err != nil {
		return err
	}
	b.rep.offline = o
	return nil
}

// writePodDump writes n pods to path as `kubectl get pods -A -o json`
// does: one List, its keys sorted, indented by four spaces. It returns the
// file's size.
func writePodDump(path string, n int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprint(w, "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n")
	for i := range n {
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(realPod(i))
		if err != nil {
			f.Close()
			return 0, err
		}
		data, err := json.MarshalIndent(obj, "        ", "    ")
		if err != nil {
			f.Close()
			return 0, err
		}
		w.WriteString("        ")
		w.Write(data)
		if i < n-1 {
			w.WriteString(",")
		}
		w.WriteString("\n")
	}
	fmt.Fprint(w, "    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// nameChars are the characters of generated name suffixes
// (k8s.io/apimachinery/pkg/util/rand's alphanums).
const nameChars = "bcdfghjklmnpqrstvwxz2456789"

// suffix is an n-character name suffix made from v.
func suffix(v uint64, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = nameChars[v%uint64(len(nameChars))]
		v /= uint64(len(nameChars))
	}
	return string(b)
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// uid is a UUID-shaped identifier made from s.
func uid(s string) types.UID {
	a, b := hash64(s), hash64(s+"/")
	return types.UID(fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>52&0xfff, b&0xffffffffffff))
}

// realPod is pod i of the dump: a pod of Deployment i%offlineDeployments's
// ReplicaSet, with the fields the API server defaults, scheduled, and
// Running and Ready as kwok reports it.
func realPod(i int) *corev1.Pod {
	d := i % offlineDeployments
	deploy := realDeployment(d, 0)
	rs := deploy.Name + "-" + suffix(hash64(deploy.Namespace+"/"+deploy.Name), 10)
	name := rs + "-" + suffix(hash64(strconv.Itoa(i)), 5)
	node := offlineNode(i)
	created := metav1.NewTime(time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * 10 * time.Millisecond))
	started := metav1.NewTime(created.Add(2 * time.Second))
	zone := []string{"zone-a", "zone-b", "zone-c"}[(i%offlineNodes)%3]
	labels := map[string]string{"pod-template-hash": rs[len(deploy.Name)+1:],
		"topology.kubernetes.io/region": "region-1", "topology.kubernetes.io/zone": zone}
	for k, v := range deploy.Spec.Template.Labels {
		labels[k] = v
	}
	spec := *deploy.Spec.Template.Spec.DeepCopy()
	token := "kube-api-access-" + suffix(hash64(name+"/token"), 5)
	c := &spec.Containers[0]
	c.ImagePullPolicy = corev1.PullIfNotPresent
	c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	c.Env[1].ValueFrom.FieldRef.APIVersion = "v1"
	c.ReadinessProbe.HTTPGet.Scheme = corev1.URISchemeHTTP
	c.ReadinessProbe.TimeoutSeconds, c.ReadinessProbe.SuccessThreshold, c.ReadinessProbe.FailureThreshold = 1, 1, 3
	c.VolumeMounts = []corev1.VolumeMount{{Name: token, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}}
	grace, expiry, mode, priority := int64(30), int64(3607), int32(0o644), int32(0)
	tolerate := int64(300)
	spec.RestartPolicy = corev1.RestartPolicyAlways
	spec.TerminationGracePeriodSeconds = &grace
	spec.DNSPolicy = corev1.DNSClusterFirst
	spec.ServiceAccountName, spec.DeprecatedServiceAccount = "default", "default"
	spec.NodeName = node
	spec.SecurityContext = &corev1.PodSecurityContext{}
	spec.SchedulerName = corev1.DefaultSchedulerName
	spec.Priority = &priority
	preempt := corev1.PreemptLowerPriority
	spec.PreemptionPolicy = &preempt
	links := true
	spec.EnableServiceLinks = &links
	spec.Tolerations = []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &tolerate},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &tolerate},
	}
	spec.Volumes = []corev1.Volume{{Name: token, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &expiry, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}}}
	nodeNum := i%offlineNodes + 1
	hostIP := fmt.Sprintf("172.18.%d.%d", nodeNum/256, nodeNum%256)
	podIP := fmt.Sprintf("10.%d.%d.%d", 244+nodeNum/256, nodeNum%256, 1+(i/offlineNodes)%250)
	isTrue := true
	controller := true
	conditions := []corev1.PodCondition{}
	for _, ct := range []corev1.PodConditionType{"PodReadyToStartContainers", corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled} {
		conditions = append(conditions, corev1.PodCondition{Type: ct, Status: corev1.ConditionTrue, LastTransitionTime: started})
	}
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: rs + "-", Namespace: deploy.Namespace,
			UID: uid(deploy.Namespace + "/" + name), ResourceVersion: strconv.Itoa(100000 + 3*i), Generation: 1,
			CreationTimestamp: created, Labels: labels, Annotations: deploy.Spec.Template.Annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs,
				UID: uid(deploy.Namespace + "/" + rs), Controller: &controller, BlockOwnerDeletion: &isTrue}},
		},
		Spec: spec,
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			Conditions: conditions,
			HostIP:     hostIP, HostIPs: []corev1.HostIP{{IP: hostIP}},
			PodIP: podIP, PodIPs: []corev1.PodIP{{IP: podIP}},
			StartTime: &started,
			QOSClass:  corev1.PodQOSBurstable,
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: c.Name, Image: c.Image, ImageID: "", Ready: true, Started: &isTrue,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
			}},
		},
	}
}

// cmdDump is the dump verb: the offline step's dump, written alone.
func cmdDump(args []string) error {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	pods := fs.Int("pods", 100000, "pods to write")
	out := fs.String("out", "", "the file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *pods < 1 {
		return errors.New("dump needs --out FILE and --pods N ≥ 1")
	}
	size, err := writePodDump(*out, *pods)
	if err != nil {
		return err
	}
	fmt.Printf("%d pods, %d bytes\n", *pods, size)
	return nil
}

// offlineRows are the rows of the offline section.
var offlineRows = []queryRow{
	{label: "`kubectl informer query pods -A --from pods.json --index node=… -o name`", id: "off-q", baselines: []string{"off-decode", "off-decode-typed"}},
	{label: "the same, plugin binary run directly", id: "off-q-direct", baselines: []string{"off-decode", "off-decode-typed"}},
	{label: "floor: `jsondecode pods.json` (one json.Decoder.Decode into interface{})", id: "off-decode", baselines: []string{"off-read"}},
	{label: "floor: `jsondecode --typed pods.json` (the same into []v1.Pod)", id: "off-decode-typed", baselines: []string{"off-read"}},
	{label: "reading the file alone (`dd`)", id: "off-read"},
}

// offlineSection is the report's "Offline" section.
func (r *report) offlineSection() string {
	o := r.offline
	if o == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	p("## Offline: `--from` a dump of %d pods (median of %d runs)\n\n", o.pods, o.runs)
	p("The dump was generated by `benchtool` (not taken from a cluster; `benchtool dump --pods N --out FILE` writes it alone), in %.1f s: %d pods of 20 Deployments in 5 namespaces (the realistic step's pod template: labels, two ports, env from the downward API, requests and limits, a readiness probe, the service-account token volume) on 60 nodes, with the fields the API server defaults and the status kwok reports, Running and Ready, as `kubectl get pods -A -o json` writes them: one List, keys sorted, indented by four spaces, no managedFields (kubectl hides them). The file is %.1f MB, %.0f bytes per pod. The query asks for the pods of one node (%d pods), with KUBECONFIG naming a file that does not exist. `hack/benchtool/jsondecode` is the floor: a Go program that opens the file and calls `json.NewDecoder(f).Decode` once, into interface{} values (what reading a file of unknown types takes) or into a list of v1.Pod. Each command ran %d time(s) (BENCH_OFFLINE_RUNS; 1 by default above 20,000 pods, where one round takes minutes), with no warm-up run (there is no discovery cache to fill, and the file just written is in the page cache), and once more polled for the RSS split. Load %.2f when the step began.\n\n",
		o.genTime.Seconds(), o.pods, float64(o.fileBytes)/1e6, float64(o.fileBytes)/float64(o.pods), o.byNode, o.runs, o.load)
	p("| row | command | wall s (min–max) | CPU s | peak RSS MiB | RssAnon / RssFile MiB | ratios to baselines (wall; RSS) | load |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, row := range offlineRows {
		if res := o.results[row.id]; res != nil {
			p("| %s | %s |%s\n", row.label, res.c.title, r.resultCells(o.results, row))
		}
	}
	p("\n")
	for _, row := range offlineRows {
		if res := o.results[row.id]; res != nil && res.warn != "" {
			p("- ⚠ %s: %s\n", row.id, res.warn)
		}
	}
	q, dec, typed := o.results["off-q"], o.results["off-decode"], o.results["off-decode-typed"]
	if q != nil && dec != nil && len(q.samples) > 0 && len(dec.samples) > 0 {
		t := newTarget("offline", "read and indexed in ≤ 2× the plain decode (wall, through kubectl)", q.wall()/dec.wall(), 2, "×", "%.2f")
		p("Target (issue 26): %s: %s, limit %s: %s.", t.name, t.measured, t.limit, t.verdict())
		if typed != nil && len(typed.samples) > 0 {
			p(" Against the decode into []v1.Pod: %.2f×.", q.wall()/typed.wall())
		}
		p(" In CPU seconds, which the machine's load changes much less: %.2f× the plain decode.", q.cpu()/dec.cpu())
		p(" Peak RSS %.1f MiB, %.1f KiB per pod: %.2f× the plain decode's %.1f MiB.", q.rss(), q.rss()*1024/float64(o.pods), q.rss()/dec.rss(), dec.rss())
		if q.anonKiB > 0 {
			p(" Of the plugin's peak, %.1f MiB anonymous (heap: the objects and the informer's cache, which share them) and %.1f MiB the binary's file-backed pages.", float64(q.anonKiB)/1024, float64(q.fileKiB)/1024)
		}
		p("\n\n")
	}
	return s.String()
}
