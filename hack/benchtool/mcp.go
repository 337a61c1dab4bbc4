package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/pkg/mcp"
)

// The mcp step (issue 37): four questions an agent asks, put to
// kubectl informer mcp and to containers/kubernetes-mcp-server, both over
// stdio through the Go SDK's client, on one cluster of kwok nodes.
const (
	// anchorPackage is kubernetes-mcp-server's npm package of the Linux
	// amd64 binary, at a pinned version.
	anchorPackage = "kubernetes-mcp-server-linux-amd64"
	anchorVersion = "0.0.67"

	mcpNamespace      = "shop"
	mcpDeployment     = "web"
	mcpReplicas       = 100
	mcpNamespaces     = 10 // of the seeded pods and ConfigMaps
	mcpConfigMaps     = 100
	mcpConfigMapBytes = 256
)

// mcpResult is the mcp step.
type mcpResult struct {
	nodes, pods int
	capacity    int // pods the nodes allow
	upTime      time.Duration
	settleTime  time.Duration // from the first create until no pod was left to schedule
	truth       mcpTruth
	changed     string // how the cluster changed during the step, "" when it did not
	runs        int
	loadStart   float64
	servers     []mcpServer
	measures    map[string]map[string]*mcpMeasure // by question id, then server id
}

// mcpServer is a server the questions are put to.
type mcpServer struct {
	id, title string
	argv      []string
	// toolsBytes is its tools/list result's size, as JSON.
	toolsBytes int
}

// mcpMeasure is one question put to one server: in a new server process,
// a first call, then runs more.
type mcpMeasure struct {
	way   []string // the tool calls, as made
	first time.Duration
	warm  []time.Duration
	bytes int // of the last answer, every call of the way summed
	// read is what a model reads of the last answer, every call of the way
	// summed: see modelBytes.
	read int
	// largest is the largest single result of the way, as JSON: above
	// sdk.DefaultMaxLineLength a client with the SDK's defaults fails the
	// call.
	largest int
	rssKiB  int64 // the server's VmHWM after the calls
	err     string
	load    float64
}

func (m *mcpMeasure) warmMedian() time.Duration {
	v := make([]float64, len(m.warm))
	for i, d := range m.warm {
		v[i] = float64(d)
	}
	return time.Duration(median(v))
}

// mcpQuestion is one question: the call to our server, checked against the
// bench's own answer, and the anchor's way, which may take several calls.
type mcpQuestion struct {
	id, title string
	// count says the answer is counts, to which the bytes targets apply.
	count bool
	ours  mcpCall
	check func(out mcp.QueryOutput, t mcpTruth) error
	// anchor asks the anchor (through call) as an agent would, and checks
	// what it got against t when full; it returns the calls made.
	anchor func(call func(mcpCall) (*sdk.CallToolResult, error), t mcpTruth, full bool) ([]string, error)
	// anchorYAML asks the anchor started with --list-output yaml: the
	// question needs the objects' specs, which its table leaves out.
	anchorYAML bool
	// anchorOf, when set, is the question whose anchor this one is compared
	// with: the same question asked of our server another way.
	anchorOf string
}

var mcpQuestions = []mcpQuestion{
	{
		id: "per-node", title: "pods per node", count: true,
		ours: mcpCall{"query", map[string]any{"types": "pods", "allNamespaces": true, "groupBy": []string{"node"}}},
		check: func(out mcp.QueryOutput, t mcpTruth) error {
			return checkGroupCounts(out, t.perNode)
		},
		anchor: func(call func(mcpCall) (*sdk.CallToolResult, error), t mcpTruth, full bool) ([]string, error) {
			c := mcpCall{"pods_list", map[string]any{}}
			res, err := call(c)
			if err != nil || !full {
				return []string{c.String()}, err
			}
			counts, err := parseTextTable(resultText(res)).count("NODE")
			if err != nil {
				return []string{c.String()}, err
			}
			return []string{c.String()}, agentCount(compareCounts(counts, t.perNode))
		},
	},
	{
		id: "not-running", title: "pods not Running per namespace", count: true,
		ours: mcpCall{"query", map[string]any{"types": "pods", "allNamespaces": true,
			"filter": "object.status.phase != 'Running'", "groupBy": []string{"namespace"}}},
		check: func(out mcp.QueryOutput, t mcpTruth) error {
			return checkGroupCounts(out, t.notRunning)
		},
		anchor: func(call func(mcpCall) (*sdk.CallToolResult, error), t mcpTruth, full bool) ([]string, error) {
			c := mcpCall{"pods_list", map[string]any{"fieldSelector": "status.phase!=Running"}}
			res, err := call(c)
			if err != nil || !full {
				return []string{c.String()}, err
			}
			counts, err := parseTextTable(resultText(res)).count("NAMESPACE")
			if err != nil && len(t.notRunning) > 0 {
				return []string{c.String()}, err
			}
			return []string{c.String()}, agentCount(compareCounts(counts, t.notRunning))
		},
	},
	{
		id: "not-running-index", title: "pods not Running per namespace, through the phase index", count: true,
		ours: mcpCall{"query", map[string]any{"types": "pods", "allNamespaces": true,
			"index": []string{"phase!=Running"}, "groupBy": []string{"namespace"}}},
		check: func(out mcp.QueryOutput, t mcpTruth) error {
			return checkGroupCounts(out, t.notRunning)
		},
		anchorOf: "not-running",
	},
	{
		id: "unused-cm", title: "ConfigMaps nothing uses",
		ours: mcpCall{"query", map[string]any{"types": "cm", "allNamespaces": true, "index": []string{"!used-by"}}},
		check: func(out mcp.QueryOutput, t mcpTruth) error {
			return checkNames(out, t.unused, true)
		},
		anchorYAML: true,
		anchor: func(call func(mcpCall) (*sdk.CallToolResult, error), t mcpTruth, full bool) ([]string, error) {
			cmCall := mcpCall{"resources_list", map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
			podCall := mcpCall{"pods_list", map[string]any{}}
			way := []string{cmCall.String(), podCall.String()}
			cmRes, err := call(cmCall)
			if err != nil {
				return way, err
			}
			podRes, err := call(podCall)
			if err != nil || !full {
				return way, err
			}
			var cms []corev1.ConfigMap
			var pods []corev1.Pod
			if err := yaml.Unmarshal([]byte(resultText(cmRes)), &cms); err != nil {
				return way, fmt.Errorf("the ConfigMaps as YAML: %w", err)
			}
			if err := yaml.Unmarshal([]byte(resultText(podRes)), &pods); err != nil {
				return way, fmt.Errorf("the pods as YAML: %w", err)
			}
			got := newMCPTruth(pods, cms, nil, nil, "")
			return way, agentCount(compareCounts(boolCounts(got.unused), boolCounts(t.unused)))
		},
	},
	{
		id: "deployment-pods", title: "the pods of one Deployment",
		ours: mcpCall{"query", map[string]any{"types": "pods", "namespace": mcpNamespace,
			"index": []string{"owner-root=Deployment/" + mcpDeployment}}},
		check: func(out mcp.QueryOutput, t mcpTruth) error {
			return checkNames(out, t.deploymentPods, false)
		},
		anchor: func(call func(mcpCall) (*sdk.CallToolResult, error), t mcpTruth, full bool) ([]string, error) {
			// The agent reads the Deployment's selector, then lists the
			// pods it selects.
			get := mcpCall{"resources_get", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"namespace": mcpNamespace, "name": mcpDeployment}}
			way := []string{get.String()}
			res, err := call(get)
			if err != nil {
				return way, err
			}
			var d appsv1.Deployment
			if err := yaml.Unmarshal([]byte(resultText(res)), &d); err != nil || d.Spec.Selector == nil {
				return way, fmt.Errorf("the Deployment as YAML has no selector: %v", err)
			}
			list := mcpCall{"pods_list_in_namespace", map[string]any{"namespace": mcpNamespace,
				"labelSelector": metav1.FormatLabelSelector(d.Spec.Selector)}}
			way = append(way, list.String())
			res, err = call(list)
			if err != nil || !full {
				return way, err
			}
			names, err := parseTextTable(resultText(res)).count("NAME")
			if err != nil {
				return way, err
			}
			return way, agentCount(compareCounts(names, boolCounts(t.deploymentPods)))
		},
	},
}

// agentCount is the anchor's answer counted or matched the agent's way
// (err: how it differs from the bench's own answer).
func agentCount(err error) error {
	if err != nil {
		return fmt.Errorf("counted the agent's way, a wrong answer: %w", err)
	}
	return nil
}

// mcpStep starts a cluster of BENCH_MCP_NODES kwok nodes, fills it,
// installs kubernetes-mcp-server from npm and puts each question to each
// server. The cluster is stopped at the end whatever happens.
func (b *bench) mcpStep(ctx context.Context) (err error) {
	r := &mcpResult{nodes: b.mcpNodes, runs: b.mcpRuns, measures: map[string]map[string]*mcpMeasure{}}
	dir := filepath.Join(b.workDir, "mcp")
	defer func() {
		down, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, derr := b.tool(down, "hack/cluster", "down", dir); derr != nil {
			err = errors.Join(err, derr)
		}
	}()
	b.logf("mcp: hack/cluster up --nodes %d", b.mcpNodes)
	start := time.Now()
	if _, err := b.tool(ctx, "hack/cluster", "up", dir, "--nodes", strconv.Itoa(b.mcpNodes),
		"--owner-pid", strconv.Itoa(os.Getpid()), "--timeout", "5m"); err != nil {
		return err
	}
	r.upTime = time.Since(start)
	b.rep.mcp = r
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	cs, err := newClient(kubeconfig)
	if err != nil {
		return err
	}
	if err := b.mcpFill(ctx, cs, kubeconfig, r); err != nil {
		return err
	}
	b.write()

	anchor, err := b.installAnchor(ctx, filepath.Join(b.workDir, "mcp-anchor"))
	if err != nil {
		return err
	}
	if r.truth, err = mcpListTruth(ctx, cs); err != nil {
		return err
	}
	seededKubeconfig := b.kubeconfig
	b.kubeconfig = kubeconfig
	defer func() { b.kubeconfig = seededKubeconfig }()
	env := b.cmdEnv()
	r.servers = []mcpServer{
		{id: "ours", title: "`kubectl informer mcp`", argv: []string{"kubectl", "informer", "mcp"}},
		{id: "anchor", title: "kubernetes-mcp-server " + anchorVersion + " `--read-only`",
			argv: []string{anchor, "--read-only", "--kubeconfig", kubeconfig}},
		{id: "anchor-yaml", title: "kubernetes-mcp-server " + anchorVersion + " `--read-only --list-output yaml`",
			argv: []string{anchor, "--read-only", "--list-output", "yaml", "--kubeconfig", kubeconfig}},
	}
	r.loadStart = loadavg1()
	for _, q := range mcpQuestions {
		r.measures[q.id] = map[string]*mcpMeasure{}
		for i := range r.servers {
			srv := &r.servers[i]
			if srv.id != "ours" && (q.anchor == nil || srv.id == "anchor-yaml" && !q.anchorYAML || srv.id == "anchor" && q.anchorYAML) {
				continue
			}
			b.waitForLoad(ctx)
			b.logf("mcp: %s, %s (load %.2f)", q.title, srv.id, loadavg1())
			m, err := b.mcpMeasure(ctx, srv, q, env, r.truth, filepath.Join(b.workDir, "mcp-"+srv.id+".stderr"))
			if err != nil {
				return fmt.Errorf("%s, %s: %w", q.title, srv.id, err)
			}
			if m.err != "" {
				b.logf("mcp: %s, %s: %s", q.title, srv.id, m.err)
			}
			r.measures[q.id][srv.id] = m
			b.write()
		}
	}
	after, err := mcpListTruth(ctx, cs)
	if err != nil {
		return err
	}
	r.changed = truthChange(r.truth, after)
	return nil
}

// mcpMeasure puts q to a new process of srv: a first call, then runs
// more, each of our answers checked; the anchor's first answer is checked
// the agent's way. Only a failure to start or list tools is an error; a
// wrong or failed answer is recorded in the measure.
func (b *bench) mcpMeasure(ctx context.Context, srv *mcpServer, q mcpQuestion, env []string, t mcpTruth, stderr string) (*mcpMeasure, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cmdTimeout)
	defer cancel()
	s, err := startMCP(ctx, srv.argv, env, stderr)
	if err != nil {
		return nil, err
	}
	defer s.close()
	srv.toolsBytes = s.toolsBytes
	m := &mcpMeasure{load: loadavg1()}
	fail := func(err error) {
		if err != nil && m.err == "" {
			m.err = err.Error()
		}
	}
	for run := 0; run <= b.mcpRuns; run++ {
		var wall time.Duration
		bytes, read := 0, 0
		if srv.id == "ours" {
			res, n, w, err := s.call(ctx, q.ours)
			wall, bytes, read, m.way = w, n, modelBytes(res), []string{q.ours.String()}
			m.largest = max(m.largest, n)
			if err == nil {
				var out mcp.QueryOutput
				if out, err = queryOutput(res.StructuredContent); err == nil {
					err = q.check(out, t)
				}
			}
			fail(err)
		} else {
			call := func(c mcpCall) (*sdk.CallToolResult, error) {
				res, n, w, err := s.call(ctx, c)
				wall += w
				bytes += n
				read += modelBytes(res)
				m.largest = max(m.largest, n)
				return res, err
			}
			way, err := q.anchor(call, t, run == 0)
			m.way = way
			fail(err)
		}
		if run == 0 {
			m.first = wall
		} else {
			m.warm = append(m.warm, wall)
		}
		m.bytes, m.read = bytes, read
		if m.err != "" && bytes == 0 {
			break // the server failed the call: no point in repeating it
		}
	}
	m.rssKiB = s.peakRSS()
	return m, nil
}

// mcpFill creates the objects the questions ask about: the Deployment
// (its pods use two ConfigMaps and, through the service-account token,
// kube-root-ca.crt), then BENCH_MCP_PODS pods in all with hack/seed (not
// bound: the scheduler puts them on the kwok nodes until the nodes are
// full, and kwok runs them; those that do not fit stay Pending), and
// ConfigMaps nothing uses. It waits until no pod is left to schedule.
func (b *bench) mcpFill(ctx context.Context, cs *kubernetes.Clientset, kubeconfig string, r *mcpResult) error {
	ctx, cancel := context.WithTimeout(ctx, b.mcpTimeout)
	defer cancel()
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, n := range nodes.Items {
		r.capacity += int(n.Status.Allocatable.Pods().Value())
	}
	start := time.Now()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: mcpNamespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return err
	}
	for _, name := range []string{mcpDeployment + "-config", mcpDeployment + "-static"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: mcpNamespace}, Data: map[string]string{"key": "value"}}
		if _, err := cs.CoreV1().ConfigMaps(mcpNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	if _, err := cs.AppsV1().Deployments(mcpNamespace).Create(ctx, mcpWebDeployment(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating Deployment %s: %w", mcpDeployment, err)
	}
	for {
		d, err := cs.AppsV1().Deployments(mcpNamespace).Get(ctx, mcpDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Status.ReadyReplicas == mcpReplicas {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the Deployment %s: %d of %d ready: %w", mcpDeployment, d.Status.ReadyReplicas, mcpReplicas, ctx.Err())
		case <-time.After(time.Second):
		}
	}
	b.logf("mcp: seeding %d pods (not bound) and %d ConfigMaps", b.mcpPods-mcpReplicas, mcpConfigMaps)
	for _, args := range [][]string{
		{"pods", "--count", strconv.Itoa(b.mcpPods - mcpReplicas), "--namespaces", strconv.Itoa(mcpNamespaces),
			"--nodes", "0", "--images", strconv.Itoa(seedImages), "--apps", strconv.Itoa(seedApps)},
		{"configmaps", "--count", strconv.Itoa(mcpConfigMaps), "--namespaces", strconv.Itoa(mcpNamespaces),
			"--size", strconv.Itoa(mcpConfigMapBytes)},
	} {
		out, err := b.tool(ctx, "hack/seed", append(args, "--kubeconfig", kubeconfig)...)
		if err != nil {
			return err
		}
		b.rep.seedNotes = append(b.rep.seedNotes, "mcp step: "+strings.TrimSpace(out))
	}
	// Settled: every pod Running, or Pending and found unschedulable.
	lastLog := time.Now()
	for {
		pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		running, unschedulable := 0, 0
		for _, p := range pods.Items {
			switch {
			case p.Status.Phase == corev1.PodRunning:
				running++
			case p.Spec.NodeName == "" && podUnschedulable(&p):
				unschedulable++
			}
		}
		if len(pods.Items) == b.mcpPods && running+unschedulable == b.mcpPods {
			r.settleTime, r.pods = time.Since(start), len(pods.Items)
			b.logf("mcp: %d pods, %d Running, %d unschedulable, %.1fs after the first create", len(pods.Items), running, unschedulable, r.settleTime.Seconds())
			return nil
		}
		if time.Since(lastLog) > 15*time.Second {
			b.logf("mcp: %d pods, %d Running, %d unschedulable after %s", len(pods.Items), running, unschedulable, time.Since(start).Round(time.Second))
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d pods, %d Running, %d unschedulable after %s (BENCH_MCP_TIMEOUT): %w",
				len(pods.Items), running, unschedulable, time.Since(start).Round(time.Second), ctx.Err())
		case <-time.After(5 * time.Second):
		}
	}
}

func podUnschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// mcpWebDeployment is the Deployment whose pods the fourth question asks
// for: its pods read one ConfigMap through envFrom and mount another.
func mcpWebDeployment() *appsv1.Deployment {
	n := int32(mcpReplicas)
	labels := map[string]string{"app": mcpDeployment}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: mcpDeployment, Namespace: mcpNamespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &n,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:         mcpDeployment,
						Image:        "registry.example.com/shop/web:1.0.0",
						EnvFrom:      []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: mcpDeployment + "-config"}}}},
						VolumeMounts: []corev1.VolumeMount{{Name: "static", MountPath: "/srv/static"}},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("15m"),
							corev1.ResourceMemory: resource.MustParse("48Mi"),
						}},
					}},
					Volumes: []corev1.Volume{{Name: "static", VolumeSource: corev1.VolumeSource{
						ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: mcpDeployment + "-static"}},
					}}},
				},
			},
		},
	}
}

// mcpListTruth lists the cluster and answers the questions from the lists.
func mcpListTruth(ctx context.Context, cs *kubernetes.Clientset) (mcpTruth, error) {
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return mcpTruth{}, err
	}
	cms, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return mcpTruth{}, err
	}
	deps, err := cs.AppsV1().Deployments("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return mcpTruth{}, err
	}
	rss, err := cs.AppsV1().ReplicaSets("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return mcpTruth{}, err
	}
	return newMCPTruth(pods.Items, cms.Items, deps.Items, rss.Items, mcpNamespace+"/"+mcpDeployment), nil
}

// truthChange says how the answers changed from before to after ("KEY:
// AFTER, want BEFORE"), "" when they did not.
func truthChange(before, after mcpTruth) string {
	var changed []string
	if err := compareCounts(after.perNode, before.perNode); err != nil {
		changed = append(changed, "pods per node: "+err.Error())
	}
	if err := compareCounts(after.notRunning, before.notRunning); err != nil {
		changed = append(changed, "pods not Running: "+err.Error())
	}
	if err := compareCounts(boolCounts(after.unused), boolCounts(before.unused)); err != nil {
		changed = append(changed, "unused ConfigMaps: "+err.Error())
	}
	if err := compareCounts(boolCounts(after.deploymentPods), boolCounts(before.deploymentPods)); err != nil {
		changed = append(changed, "the Deployment's pods: "+err.Error())
	}
	return strings.Join(changed, "; ")
}

// installAnchor installs kubernetes-mcp-server's pinned npm package into
// dir and returns its binary, after checking that it reports its version.
func (b *bench) installAnchor(ctx context.Context, dir string) (string, error) {
	b.logf("mcp: npm install %s@%s", anchorPackage, anchorVersion)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := b.tool(ctx, "npm", "install", "--prefix", dir, "--no-save", "--no-package-lock",
		"--no-audit", "--no-fund", anchorPackage+"@"+anchorVersion); err != nil {
		return "", fmt.Errorf("installing kubernetes-mcp-server from npm: %w", err)
	}
	bin := filepath.Join(dir, "node_modules", anchorPackage, "bin", anchorPackage)
	out, err := b.tool(ctx, bin, "--version")
	if err != nil {
		return "", err
	}
	if got := strings.TrimSpace(out); got != "v"+anchorVersion {
		return "", fmt.Errorf("%s --version printed %q, want v%s", bin, got, anchorVersion)
	}
	return bin, nil
}
