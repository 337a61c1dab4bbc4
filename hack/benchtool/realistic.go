package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// The realistic data set: BENCH_REAL_DEPLOYMENTS Deployments, Deployment i
// in namespace shop-<i%realNamespaces>, with label app=realApps[i%10], so
// that (as in the seeded set) one image matches a twentieth of the pods
// when there are 20 Deployments and one app a tenth.
const (
	realNamespaces = 5
	realQueryIndex = 3 // query 1 asks for Deployment 3's image, query 2 for its app
	realLabel      = "bench.kubectl-informer.io/data-set"
)

var realApps = []string{"web", "api", "checkout", "cart", "search", "auth", "catalog", "payments", "inventory", "notify"}

// realisticResult is the realistic step: a second cluster with
// controllers, a scheduler and simulated nodes, and Deployments rolled out
// on it.
type realisticResult struct {
	nodes, deployments int
	set                dataSet
	upTime             time.Duration // hack/cluster up DIR --nodes N
	createTime         time.Duration // creating the namespaces and Deployments
	createdTime        time.Duration // from the first create until every pod existed
	runningTime        time.Duration // from the first create until every pod was Running
	results            map[string]*result
	// The mean managedFields per pod, in protobuf bytes, of each set, and
	// the field managers of the realistic pods.
	seedManaged, realManaged float64
	realManagers             []string
}

func newClient(kubeconfig string) (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "benchtool"
	cfg.QPS, cfg.Burst = 100, 200
	return kubernetes.NewForConfig(cfg)
}

// managedFieldsSize is the mean size of the pods' managedFields in
// protobuf (each pod's size with them less its size without), and the
// field managers, sorted.
func managedFieldsSize(pods []corev1.Pod) (float64, []string) {
	if len(pods) == 0 {
		return 0, nil
	}
	var n int
	managers := map[string]bool{}
	for i := range pods {
		p := &pods[i]
		for _, e := range p.ManagedFields {
			key := e.Manager + " (" + string(e.Operation)
			if e.Subresource != "" {
				key += " " + e.Subresource
			}
			managers[key+")"] = true
		}
		with := p.Size()
		mf := p.ManagedFields
		p.ManagedFields = nil
		n += with - p.Size()
		p.ManagedFields = mf
	}
	return float64(n) / float64(len(pods)), slices.Sorted(maps.Keys(managers))
}

// podsPerMinute is how many pods reached Running per minute, from the
// first Deployment's create to the last pod Running.
func (r *realisticResult) podsPerMinute() float64 {
	if r.runningTime <= 0 {
		return 0
	}
	return float64(r.set.pods) / r.runningTime.Minutes()
}

func realName(i int) string {
	if i < len(realApps) {
		return realApps[i]
	}
	return fmt.Sprintf("%s-%d", realApps[i%len(realApps)], i/len(realApps))
}

func realNamespace(i int) string { return fmt.Sprintf("shop-%d", i%realNamespaces) }

func realImage(i int) string {
	return fmt.Sprintf("registry.example.com/shop/%s:1.%d.%d", realApps[i%len(realApps)], 4+i/len(realApps), i%7)
}

// realReplicas spreads pods over n Deployments, the first ones one more.
func realReplicas(i, n, pods int) int {
	r := pods / n
	if i < pods%n {
		r++
	}
	return r
}

// realDeployment is Deployment i with the given replicas, its pod template
// as real ones are: labels, two ports, env (one from the downward API),
// requests and limits, a readiness probe and the default grace period. The
// service-account token is mounted, as by default.
func realDeployment(i, replicas int) *appsv1.Deployment {
	name, app := realName(i), realApps[i%len(realApps)]
	selector := map[string]string{"app": app, "component": name}
	labels := map[string]string{"app": app, "component": name, "tier": "backend", realLabel: "realistic"}
	if i%3 == 0 {
		labels["tier"] = "frontend"
	}
	n := int32(replicas)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: realNamespace(i), Labels: map[string]string{"app": app, realLabel: "realistic"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &n,
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      labels,
					Annotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
				},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:  app,
						Image: realImage(i),
						Args:  []string{"--listen=:8080", "--metrics=:9090", "--log-format=json"},
						Ports: []corev1.ContainerPort{
							{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
							{Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP},
						},
						Env: []corev1.EnvVar{
							{Name: "LOG_LEVEL", Value: "info"},
							{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
						},
						Resources: corev1.ResourceRequirements{
							// Small enough that 110 fit on a 2-CPU node.
							Requests: corev1.ResourceList{
								corev1.ResourceCPU:    resource.MustParse("15m"),
								corev1.ResourceMemory: resource.MustParse("48Mi"),
							},
							Limits: corev1.ResourceList{
								corev1.ResourceCPU:    resource.MustParse("250m"),
								corev1.ResourceMemory: resource.MustParse("128Mi"),
							},
						},
						ReadinessProbe: &corev1.Probe{
							ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}},
							InitialDelaySeconds: 5,
							PeriodSeconds:       10,
						},
					}},
				},
			},
		},
	}
}

// realistic starts a second cluster with BENCH_REAL_NODES simulated nodes,
// rolls out the Deployments, times them until every pod is Running and
// measures the pod queries on it. The seeded pods cannot live there: the
// controller-manager's pod garbage collector deletes pods bound to nodes
// that do not exist.
func (b *bench) realistic(ctx context.Context) (err error) {
	r := &realisticResult{nodes: b.realNodes, deployments: b.realDeployments}
	if cs, err := newClient(b.kubeconfig); err == nil {
		if pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{}); err == nil {
			r.seedManaged, _ = managedFieldsSize(pods.Items)
		}
	}
	dir := filepath.Join(b.workDir, "realistic")
	defer func() {
		// Stopped whatever happens, also if ctx is done.
		down, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, derr := b.tool(down, "hack/cluster", "down", dir); derr != nil {
			err = errors.Join(err, derr)
		}
	}()
	b.logf("realistic: hack/cluster up --nodes %d", b.realNodes)
	start := time.Now()
	if _, err := b.tool(ctx, "hack/cluster", "up", dir, "--nodes", strconv.Itoa(b.realNodes),
		"--owner-pid", strconv.Itoa(os.Getpid()), "--timeout", "5m"); err != nil {
		return err
	}
	r.upTime = time.Since(start)
	b.rep.realistic = r
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := b.rollOut(ctx, kubeconfig, r); err != nil {
		return err
	}
	b.write()

	// Measure as in the queries step, against this cluster.
	seededKubeconfig := b.kubeconfig
	b.kubeconfig = kubeconfig
	defer func() { b.kubeconfig = seededKubeconfig }()
	r.results, err = b.measureCases(ctx, append(append(b.podQueryCases(r.set), b.capacityCases(r.set)...), b.relationshipCases()...))
	return err
}

// rollOut creates the namespaces and Deployments, waits until every pod is
// Running, and fills r's timings and data set.
func (b *bench) rollOut(ctx context.Context, kubeconfig string, r *realisticResult) error {
	cs, err := newClient(kubeconfig)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, b.realTimeout)
	defer cancel()
	start := time.Now()
	for i := range min(realNamespaces, r.deployments) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: realNamespace(i)}}
		if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	set := dataSet{image: realImage(realQueryIndex), app: realApps[realQueryIndex]}
	for i := range r.deployments {
		replicas := realReplicas(i, r.deployments, b.realPods)
		if _, err := cs.AppsV1().Deployments(realNamespace(i)).Create(ctx, realDeployment(i, replicas), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating Deployment %s: %w", realName(i), err)
		}
		set.pods += replicas
		if i == realQueryIndex {
			set.byImage = replicas
		}
		if i%len(realApps) == realQueryIndex {
			set.byApp += replicas
		}
	}
	r.createTime = time.Since(start)
	b.logf("realistic: %d Deployments, %d pods in all, created in %.1fs; waiting for the pods to run", r.deployments, set.pods, r.createTime.Seconds())

	// The Deployments' status is a cheap poll: 20 objects, not 10,000 pods.
	// kwok makes a pod Running and Ready in the same update.
	sel := metav1.ListOptions{LabelSelector: realLabel + "=realistic"}
	lastLog := time.Now()
	for {
		deps, err := cs.AppsV1().Deployments("").List(ctx, sel)
		if err != nil {
			return fmt.Errorf("waiting for the pods to run: %w", err)
		}
		var created, ready int
		for _, d := range deps.Items {
			created += int(d.Status.Replicas)
			ready += int(d.Status.ReadyReplicas)
		}
		if created >= set.pods && r.createdTime == 0 {
			r.createdTime = time.Since(start)
		}
		if ready >= set.pods {
			r.runningTime = time.Since(start)
			break
		}
		if time.Since(lastLog) > 15*time.Second {
			b.logf("realistic: %d pods created, %d ready after %s", created, ready, time.Since(start).Round(time.Second))
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d pods ready after %s (BENCH_REAL_TIMEOUT): %w", ready, set.pods, time.Since(start).Round(time.Second), ctx.Err())
		case <-time.After(time.Second):
		}
	}

	// Confirm from the pods themselves, and count the nodes they run on.
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	nodes := map[string]bool{}
	running := 0
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.Spec.NodeName != "" {
			running++
			nodes[p.Spec.NodeName] = true
		}
	}
	if len(pods.Items) != set.pods || running != set.pods {
		return fmt.Errorf("expected %d pods Running, found %d pods, %d Running", set.pods, len(pods.Items), running)
	}
	set.nodes = len(nodes)
	r.set = set
	r.realManaged, r.realManagers = managedFieldsSize(pods.Items)
	b.logf("realistic: %d pods Running on %d nodes %.1fs after the first create (%.0f pods/min)",
		set.pods, set.nodes, r.runningTime.Seconds(), r.podsPerMinute())
	return nil
}

// fullObjectRows read whole pods; metadataRows read metadata only. The
// closing note of the realistic section compares how their ratios to the
// raw protobuf LIST move.
var (
	fullObjectRows = []string{"q1", "q1-direct", "decode-pb", "q3", "q5", "kubectl-get", "raw-pb-plain", "raw-json-pods"}
	metadataRows   = []string{"q2", "q2-direct", "raw-meta", "decode-meta"}
)

// perPod is the body of a raw LIST over the pods it held, or 0.
func perPod(results map[string]*result, id string, pods int) float64 {
	n := bodyBytes(results[id])
	if n == 0 || pods == 0 {
		return 0
	}
	return float64(n) / float64(pods)
}

// toRawList is a row's median wall time over the raw protobuf LIST's, or 0.
func toRawList(results map[string]*result, id string) float64 {
	res, raw := results[id], results["raw-pb"]
	if res == nil || raw == nil || len(res.samples) == 0 || len(raw.samples) == 0 {
		return 0
	}
	return res.wall() / raw.wall()
}

// realisticSection is the realistic step's part of the report: how the
// cluster came up and the pods rolled out, the pod sizes and the query
// table of both data sets, each row's ratio to the raw LIST side by side,
// and a closing note on how the ratios moved.
func (r *report) realisticSection() string {
	rr := r.realistic
	if rr == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	p("## Realistic data set: Deployments on simulated nodes (%d pods, median of %d runs)\n\n", rr.set.pods, r.runs)
	p("A second control plane, `hack/cluster up DIR --nodes %d --owner-pid PID` (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and %d nodes simulated by kwok, in zones zone-a/b/c, of 2, 4 and 8 CPUs with 110 or 250 pods each), was up with every node Ready in **%.1f s** (timed around `hack/cluster up`, which includes its check that its own binary is up to date). The seeded pods cannot live there: the controller-manager's pod garbage collector deletes pods bound to nodes that do not exist. The seeded cluster stayed up, idle, while this one ran; this one was stopped at the end of the step.\n\n",
		rr.nodes, rr.nodes, rr.upTime.Seconds())
	if rr.runningTime == 0 {
		return s.String()
	}
	p("%d Deployments in %d namespaces, %d replicas in all (pod template: labels app, component and tier; two named ports; env LOG_LEVEL and POD_NAME from the downward API; requests 15m CPU and 48Mi, limits 250m and 128Mi; an HTTP readiness probe; the service-account token mounted, as by default), were created in %.1f s. The ReplicaSets had created every pod %.1f s after the first create, and every pod was Running and Ready **%.1f s** after it: **%.0f pods per minute** reached Running (the Deployments' readyReplicas, polled every second; a LIST then found all %d pods Running, on %d nodes). kube-controller-manager, kube-scheduler and kwok (node heartbeats) kept running while the queries below ran.\n\n",
		rr.deployments, min(realNamespaces, rr.deployments), rr.set.pods, rr.createTime.Seconds(), rr.createdTime.Seconds(), rr.runningTime.Seconds(), rr.podsPerMinute(), rr.set.pods, rr.set.nodes)
	if rr.results == nil {
		return s.String()
	}
	p("Index values: query 1 asks for `image=%s` (%d pods), query 2 for `label:app=%s` (%d pods); the seeded set's are `image=%s` and `label:app=%s`. Query 3 groups by node (%d nodes here).\n\n",
		rr.set.image, rr.set.byImage, rr.set.app, rr.set.byApp, queryImage, queryApp, rr.set.nodes)

	seed := r.queries
	p("### Pod size (the raw LISTs' bodies over the pods)\n\n| encoding | seeded (`hack/seed pods`, %d pods) | realistic (Deployments, %d pods) | realistic / seeded |\n| --- | --- | --- | --- |\n", r.queryPods, rr.set.pods)
	for _, e := range []struct{ id, what string }{{"raw-pb", "protobuf"}, {"raw-meta", "metadata-only protobuf"}, {"raw-json-pods", "JSON"}} {
		sp, rp := perPod(seed, e.id, r.queryPods), perPod(rr.results, e.id, rr.set.pods)
		p("| %s | %s | %s | %s |\n", e.what, bytesOrDash(sp), bytesOrDash(rp), factorOrDash(rp, sp))
	}
	p("| of which managedFields (protobuf; a pod's size with them less without, from a typed LIST) | %s | %s | %s |\n", bytesOrDash(rr.seedManaged), bytesOrDash(rr.realManaged), factorOrDash(rr.realManaged, rr.seedManaged))
	p("\n### Measurements on the realistic set\n\n%s\n", r.queryTable(rr.results))

	p("### Each row's ratio to the raw protobuf LIST, both data sets\n\n")
	p("Median wall time of each row over the median wall time of the raw protobuf LIST of all pods of the same cluster (*floor: raw protobuf LIST*, measured in the same rounds). The last columns say how much each row's own wall and CPU time grew from the seeded pods to the realistic ones; CPU (user+system of the command alone, not the apiserver's) moves much less with the machine's load than wall time.\n\n")
	p("| query | command | seeded: wall s | seeded: × raw LIST | realistic: wall s | realistic: × raw LIST | realistic ratio / seeded ratio | wall realistic / seeded | CPU s seeded → realistic |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, g := range queryGroups {
		title := g.title
		for _, row := range g.rows {
			rres := rr.results[row.id]
			if rres == nil {
				continue
			}
			sr, rrat := toRawList(seed, row.id), toRawList(rr.results, row.id)
			sw, grew, cpu := "–", "–", fmt.Sprintf("– → %.3f", rres.cpu())
			if sres := seed[row.id]; sres != nil && len(sres.samples) > 0 {
				sw = fmt.Sprintf("%.3f", sres.wall())
				grew = factorOrDash(rres.wall(), sres.wall())
				cpu = fmt.Sprintf("%.3f → %.3f (%s)", sres.cpu(), rres.cpu(), factorOrDash(rres.cpu(), sres.cpu()))
			}
			p("| %s | %s%s | %s | %s | %.3f | %s | %s | %s | %s |\n", title, row.label, noisy(rres), sw, factorOrDash(sr, 1), rres.wall(), factorOrDash(rrat, 1), factorOrDash(rrat, sr), grew, cpu)
			title = ""
		}
	}
	p("\n%s\n", r.realisticNote())
	return s.String()
}

// realisticNote is the closing note: how the ratios to the raw LIST moved
// from the seeded pods to the realistic ones, next to how their size did.
func (r *report) realisticNote() string {
	rr := r.realistic
	seed := r.queries
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	p("**How the ratios move with real object sizes.** `hack/cluster up --nodes %d` took %.1f s; %.0f pods per minute reached Running (%d pods in %.1f s). ",
		rr.nodes, rr.upTime.Seconds(), rr.podsPerMinute(), rr.set.pods, rr.runningTime.Seconds())
	spb, rpb := perPod(seed, "raw-pb", r.queryPods), perPod(rr.results, "raw-pb", rr.set.pods)
	smeta, rmeta := perPod(seed, "raw-meta", r.queryPods), perPod(rr.results, "raw-meta", rr.set.pods)
	sjson, rjson := perPod(seed, "raw-json-pods", r.queryPods), perPod(rr.results, "raw-json-pods", rr.set.pods)
	if spb == 0 || rpb == 0 {
		p("The queries step did not run in this invocation, so there is no seeded side to compare with.\n")
		return s.String()
	}
	p("A realistic pod is %.0f B as protobuf and %.0f B as JSON against the seeded pod's %.0f B and %.0f B (%.2f× and %.2f×); its metadata is %.0f B against %.0f B (%.2f×), so metadata is %.0f%% of the protobuf pod instead of %.0f%%",
		rpb, rjson, spb, sjson, rpb/spb, rjson/sjson, rmeta, smeta, rmeta/smeta, 100*rmeta/rpb, 100*smeta/spb)
	if rr.realManaged > 0 && rr.seedManaged > 0 {
		p("; managedFields alone are %.0f B of a realistic pod (%.0f%%; managers %s) against %.0f B (%.0f%%)",
			rr.realManaged, 100*rr.realManaged/rpb, strings.Join(rr.realManagers, ", "), rr.seedManaged, 100*rr.seedManaged/spb)
	}
	p(". ")
	sraw, rraw := seed["raw-pb"], rr.results["raw-pb"]
	p("The raw protobuf LIST took %.3f s for %d realistic pods against %.3f s for %d seeded ones (%.1f µs against %.1f µs per pod). ",
		rraw.wall(), rr.set.pods, sraw.wall(), r.queryPods, 1e6*rraw.wall()/float64(rr.set.pods), 1e6*sraw.wall()/float64(r.queryPods))
	moves := func(ids []string) (parts []string, factors []float64) {
		for _, id := range ids {
			sr, rrat := toRawList(seed, id), toRawList(rr.results, id)
			if sr == 0 || rrat == 0 {
				continue
			}
			name := shortName[id]
			if name == "" {
				name = id
			}
			parts = append(parts, fmt.Sprintf("%s %.2f× → %.2f×", name, sr, rrat))
			factors = append(factors, rrat/sr)
		}
		return parts, factors
	}
	fullParts, fullF := moves(fullObjectRows)
	metaParts, metaF := moves(metadataRows)
	if len(fullParts) > 0 {
		p("Ratios to that LIST, seeded → realistic, of the rows that read whole pods: %s (median change %s). ", strings.Join(fullParts, ", "), direction(median(fullF)))
	}
	if len(metaParts) > 0 {
		p("Of the rows that read metadata only: %s (median change %s). ", strings.Join(metaParts, ", "), direction(median(metaF)))
	}
	var grew, steady []string
	for _, id := range append(append([]string{}, fullObjectRows...), metadataRows...) {
		sres, rres := seed[id], rr.results[id]
		if sres == nil || rres == nil || len(sres.samples) == 0 || len(rres.samples) == 0 {
			continue
		}
		name := shortName[id]
		if f := rres.wall() / sres.wall(); f > rraw.wall()/sraw.wall() {
			grew = append(grew, fmt.Sprintf("%s (wall ×%.2f, CPU ×%.2f%s)", name, f, rres.cpu()/sres.cpu(), noisy(rres)))
		} else {
			steady = append(steady, fmt.Sprintf("%s ×%.2f", name, f))
		}
	}
	p("The raw LIST's wall time grew ×%.2f with pods ×%.2f as big: it moves with the bytes. ", rraw.wall()/sraw.wall(), rpb/spb)
	if len(steady) > 0 {
		p("The wall time of %s grew less than that, so their ratio to the LIST fell: part of their cost does not grow with the pods (process start-up, TLS, and for the plugin discovery and the informer's set-up). ", strings.Join(steady, ", "))
	}
	if len(grew) > 0 {
		p("The wall time of %s grew more than the LIST's, so the ratio to the LIST rose for these. ", strings.Join(grew, ", "))
	}
	if rmeta/rpb < smeta/spb {
		p("Metadata-only rows read a smaller share of a realistic pod, so against the full LIST they should fall further. ")
	}
	p("Wall times are medians on a shared 2-core machine: compare the load columns before reading a change of less than about 10%% as real.\n")
	return s.String()
}

// noisy flags a result whose slowest run took more than twice its
// fastest: on a shared machine its median says less.
func noisy(res *result) string {
	if lo, hi := res.wallRange(); lo > 0 && hi > 2*lo {
		return fmt.Sprintf(" ⚠ runs %.2f–%.2f s", lo, hi)
	}
	return ""
}

// direction says how a factor moves a ratio.
func direction(f float64) string {
	switch {
	case f > 1.1:
		return fmt.Sprintf("up, ×%.2f", f)
	case f < 1/1.1:
		return fmt.Sprintf("down, ×%.2f", f)
	default:
		return fmt.Sprintf("within 10%%, ×%.2f", f)
	}
}

func bytesOrDash(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f B", v)
}

// factorOrDash is a/b as a factor, or a dash when either is missing.
func factorOrDash(a, b float64) string {
	if a == 0 || b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}
