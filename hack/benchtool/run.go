package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The seeded data set. Pod i runs registry.example.com/image-<i%20>:v1 on
// node-<i%50> with label app=app-<i%10>, in namespace seed-<i%10>.
const (
	seedNamespaces = 10
	seedNodes      = 50
	seedImages     = 20
	seedApps       = 10
	queryImage     = "registry.example.com/image-3:v1"
	queryApp       = "app-3"
)

// The Accept headers of the raw LIST floors.
const (
	acceptProtobuf = "application/vnd.kubernetes.protobuf"
	acceptMetadata = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
	acceptJSON     = "application/json"
)

// bench is one run of the whole benchmark.
type bench struct {
	root, clusterDir, workDir, out string
	kubeconfig, self, plugin       string
	rawlist, runner, floor         string
	jsondecode                     string

	runs          int
	pods          int // seeded so far
	widgets       int
	scalePods     []int
	watchRates    []int
	watchDuration time.Duration
	watchNS       string
	microCount    int
	steps         map[string]bool
	maxLoad       float64
	loadWait      time.Duration
	cmdTimeout    time.Duration
	profileRepeat int

	realNodes       int
	realDeployments int
	realPods        int
	realTimeout     time.Duration

	offlinePods int
	// offlineRuns is the offline step's rounds (BENCH_OFFLINE_RUNS).
	offlineRuns int
	// recordingPods is the recording step's pods (BENCH_RECORDING_PODS).
	recordingPods int
	// fleetClusters, fleetPods, fleetRuns and fleetSeedParallel are the
	// fleet step's BENCH_FLEET_CLUSTERS, _PODS, _RUNS and _SEED_PARALLEL.
	fleetClusters, fleetPods, fleetRuns, fleetSeedParallel int
	// loadClients, loadRate and loadDuration are the load step's
	// BENCH_LOAD_CLIENTS, _RATE and _DURATION.
	loadClients, loadRate int
	loadDuration          time.Duration
	// soakPods, soakClients, soakRate, soakDuration, soakEvery and
	// soakHolds are the soak step's BENCH_SOAK_PODS, _CLIENTS, _RATE,
	// _DURATION, _RESTART_EVERY and _DOWN.
	soakPods, soakClients, soakRate int
	soakDuration, soakEvery         time.Duration
	soakHolds                       []time.Duration
	// mcpNodes, mcpPods, mcpRuns and mcpTimeout are the mcp step's
	// BENCH_MCP_NODES, _PODS, _RUNS and _TIMEOUT.
	mcpNodes, mcpPods, mcpRuns int
	mcpTimeout                 time.Duration
	// stepList is BENCH_STEPS in its order.
	stepList []string

	rep      report
	previous string // the report file as it was before this run
}

// clusterFreeSteps are the steps that need no seeded objects.
var clusterFreeSteps = map[string]bool{"offline": true, "recording": true, "fleet": true, "mustgather": true, "mcp": true, "usage": true}

// selfSeedingSteps seed the pods they need themselves (and no widgets).
var selfSeedingSteps = map[string]bool{"soak": true}

// needsSeed says whether a step of this invocation reads the seeded pods
// and widgets.
func (b *bench) needsSeed() bool {
	for _, s := range b.stepList {
		if !clusterFreeSteps[s] && !selfSeedingSteps[s] {
			return true
		}
	}
	return false
}

// ran says whether a step runs in this invocation: scale and load only
// with BENCH_SCALE=1.
func (b *bench) ran(step string) bool {
	return b.steps[step] && (step != "scale" && step != "load" || len(b.scalePods) > 0)
}

func cmdRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	b := &bench{}
	fs.StringVar(&b.clusterDir, "cluster-dir", "", "directory of a running hack/cluster")
	fs.StringVar(&b.workDir, "work-dir", "", "scratch directory")
	fs.StringVar(&b.root, "root", ".", "repository root")
	fs.StringVar(&b.out, "out", "", "report file (default ROOT/bench/RESULTS.md, or $BENCH_OUT)")
	fs.StringVar(&b.rawlist, "rawlist", "", "the hack/benchtool/rawlist binary (default: next to this one)")
	fs.StringVar(&b.runner, "runner", "", "the hack/benchtool/runner binary (default: next to this one)")
	fs.StringVar(&b.floor, "floor", "", "the hack/benchtool/floor binary (default: next to this one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if b.clusterDir == "" || b.workDir == "" {
		return errors.New("run needs --cluster-dir and --work-dir")
	}
	var err error
	if b.root, err = filepath.Abs(b.root); err != nil {
		return err
	}
	if b.out == "" {
		b.out = envString("BENCH_OUT", filepath.Join(b.root, "bench", "RESULTS.md"))
	}
	if err := b.configure(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return b.run(ctx)
}

// configure reads the BENCH_* variables.
func (b *bench) configure() error {
	var err error
	b.kubeconfig = filepath.Join(b.clusterDir, "admin.kubeconfig")
	if b.self, err = os.Executable(); err != nil {
		return err
	}
	if b.rawlist == "" {
		b.rawlist = filepath.Join(filepath.Dir(b.self), "rawlist")
	}
	if b.runner == "" {
		b.runner = filepath.Join(filepath.Dir(b.self), "runner")
	}
	if b.floor == "" {
		b.floor = filepath.Join(filepath.Dir(b.self), "floor")
	}
	b.jsondecode = filepath.Join(filepath.Dir(b.self), "jsondecode")
	for _, bin := range []string{b.rawlist, b.runner, b.floor, b.jsondecode} {
		if _, err := os.Stat(bin); err != nil {
			return fmt.Errorf("%w (go build -o DIR/ ./hack/benchtool/...)", err)
		}
	}
	b.plugin = filepath.Join(b.root, "bin", "kubectl-informer")
	if _, err := os.Stat(b.plugin); err != nil {
		return fmt.Errorf("the plugin binary: %w (run make build)", err)
	}
	var errs []error
	b.runs = envInt("BENCH_RUNS", 5, &errs)
	b.pods = envInt("BENCH_PODS", 10000, &errs)
	b.widgets = envInt("BENCH_WIDGETS", 10000, &errs)
	b.microCount = envInt("BENCH_MICRO_COUNT", 5, &errs)
	b.profileRepeat = envInt("BENCH_PROFILE_REPEAT", 10, &errs)
	b.watchRates = envInts("BENCH_WATCH_RATES", []int{50, 200, 500}, &errs)
	b.watchDuration = envDuration("BENCH_WATCH_DURATION", 10*time.Second, &errs)
	b.watchNS = envString("BENCH_WATCH_NAMESPACE", "seed-0")
	b.loadWait = envDuration("BENCH_LOAD_WAIT", 20*time.Second, &errs)
	b.cmdTimeout = envDuration("BENCH_CMD_TIMEOUT", 5*time.Minute, &errs)
	b.maxLoad = envFloat("BENCH_MAX_LOAD", 2*float64(runtime.NumCPU()), &errs)
	b.realNodes = envInt("BENCH_REAL_NODES", 60, &errs)
	b.realDeployments = envInt("BENCH_REAL_DEPLOYMENTS", 20, &errs)
	b.realPods = envInt("BENCH_REAL_PODS", 10000, &errs)
	b.realTimeout = envDuration("BENCH_REAL_TIMEOUT", 40*time.Minute, &errs)
	b.offlinePods = envInt("BENCH_OFFLINE_PODS", 100000, &errs)
	if envString("BENCH_SCALE", "") == "1" {
		b.scalePods = envInts("BENCH_SCALE_PODS", []int{10000, 100000, 150000}, &errs)
	}
	b.loadClients = envInt("BENCH_LOAD_CLIENTS", 3, &errs)
	b.loadRate = envInt("BENCH_LOAD_RATE", 1000, &errs)
	b.loadDuration = envDuration("BENCH_LOAD_DURATION", 5*time.Minute, &errs)
	if b.loadClients < 1 || b.loadRate < 1 || b.loadDuration <= 0 {
		errs = append(errs, errors.New("BENCH_LOAD_CLIENTS, BENCH_LOAD_RATE and BENCH_LOAD_DURATION must be positive"))
	}
	b.soakPods = envInt("BENCH_SOAK_PODS", 10000, &errs)
	b.soakClients = envInt("BENCH_SOAK_CLIENTS", 3, &errs)
	b.soakRate = envInt("BENCH_SOAK_RATE", 200, &errs)
	b.soakDuration = envDuration("BENCH_SOAK_DURATION", 30*time.Minute, &errs)
	b.soakEvery = envDuration("BENCH_SOAK_RESTART_EVERY", 4*time.Minute, &errs)
	b.soakHolds = envDurations("BENCH_SOAK_DOWN", []time.Duration{2 * time.Second, 8 * time.Second, 14 * time.Second}, &errs)
	if b.soakPods < 1 || b.soakClients < 1 || b.soakRate < 1 || b.soakDuration <= 0 || b.soakEvery <= 0 {
		errs = append(errs, errors.New("BENCH_SOAK_PODS, BENCH_SOAK_CLIENTS, BENCH_SOAK_RATE, BENCH_SOAK_DURATION and BENCH_SOAK_RESTART_EVERY must be positive"))
	}
	b.mcpNodes = envInt("BENCH_MCP_NODES", 45, &errs)
	b.mcpPods = envInt("BENCH_MCP_PODS", 10000, &errs)
	b.mcpRuns = envInt("BENCH_MCP_RUNS", b.runs, &errs)
	b.mcpTimeout = envDuration("BENCH_MCP_TIMEOUT", 20*time.Minute, &errs)
	if b.mcpNodes < 1 || b.mcpPods <= mcpReplicas || b.mcpRuns < 1 || b.mcpTimeout <= 0 {
		errs = append(errs, fmt.Errorf("BENCH_MCP_NODES, BENCH_MCP_RUNS and BENCH_MCP_TIMEOUT must be positive, BENCH_MCP_PODS above %d", mcpReplicas))
	}
	b.fleetClusters = envInt("BENCH_FLEET_CLUSTERS", 10, &errs)
	b.fleetPods = envInt("BENCH_FLEET_PODS", 10000, &errs)
	b.fleetRuns = envInt("BENCH_FLEET_RUNS", 3, &errs)
	b.fleetSeedParallel = envInt("BENCH_FLEET_SEED_PARALLEL", runtime.NumCPU(), &errs)
	if b.fleetClusters < 2 || b.fleetClusters > 20 {
		errs = append(errs, fmt.Errorf("BENCH_FLEET_CLUSTERS must be between 2 and 20 (hack/cluster fleet's limit), got %d", b.fleetClusters))
	}
	if b.fleetPods < 1 || b.fleetRuns < 1 || b.fleetSeedParallel < 1 {
		errs = append(errs, errors.New("BENCH_FLEET_PODS, BENCH_FLEET_RUNS and BENCH_FLEET_SEED_PARALLEL must be at least 1"))
	}
	steps := envString("BENCH_STEPS", "queries,warm,startup,clients,realistic,memory,watch,offline,recording,fleet,profile,micro,scale,load")
	b.steps = map[string]bool{}
	for _, s := range strings.Split(steps, ",") {
		b.steps[strings.TrimSpace(s)] = true
		b.stepList = append(b.stepList, strings.TrimSpace(s))
	}
	// At 100,000 pods one round of the offline step runs for minutes.
	offlineRuns := b.runs
	if b.offlinePods > 20000 {
		offlineRuns = 1
	}
	b.offlineRuns = envInt("BENCH_OFFLINE_RUNS", offlineRuns, &errs)
	b.recordingPods = envInt("BENCH_RECORDING_PODS", 2000, &errs)
	if b.recordingPods < offlineDeployments {
		errs = append(errs, fmt.Errorf("BENCH_RECORDING_PODS must be at least %d", offlineDeployments))
	}
	if b.offlineRuns < 1 {
		errs = append(errs, errors.New("BENCH_OFFLINE_RUNS must be at least 1"))
	}
	if b.offlinePods < 1 {
		errs = append(errs, errors.New("BENCH_OFFLINE_PODS must be at least 1"))
	}
	if b.runs < 1 || b.pods < 1 || b.widgets < 1 {
		errs = append(errs, errors.New("BENCH_RUNS, BENCH_PODS and BENCH_WIDGETS must be at least 1"))
	}
	if b.realNodes < 1 || b.realDeployments < 1 || b.realPods < b.realDeployments {
		errs = append(errs, errors.New("BENCH_REAL_NODES and BENCH_REAL_DEPLOYMENTS must be at least 1, BENCH_REAL_PODS at least BENCH_REAL_DEPLOYMENTS"))
	}
	return errors.Join(errs...)
}

func (b *bench) run(ctx context.Context) error {
	began := time.Now()
	b.rep = report{began: began, runs: b.runs}
	if prev, err := os.ReadFile(b.out); err == nil {
		b.previous = string(prev)
	}
	b.rep.machine = b.machine(ctx)
	b.logf("machine: %d CPUs, %s, load %.2f", runtime.NumCPU(), b.rep.machine.cpuModel, loadavg1())

	if b.needsSeed() {
		if err := b.seed(ctx); err != nil {
			return err
		}
	} else {
		b.pods = 0 // none seeded yet: a step that needs pods seeds them
		b.logf("not seeding: the steps %s need no objects in the cluster or seed their own", strings.Join(b.stepList, ","))
		b.rep.seedNotes = append(b.rep.seedNotes, "none seeded in the main cluster before the steps (the steps run, "+strings.Join(b.stepList, ", ")+", seed the pods they need, read files they write or start clusters of their own)")
	}
	b.write()
	if b.steps["queries"] {
		if err := b.queries(ctx); err != nil {
			return err
		}
		b.write()
	}
	if b.steps["warm"] {
		if err := b.warm(ctx); err != nil {
			return fmt.Errorf("warm: %w", err)
		}
		b.write()
	}
	if b.steps["startup"] {
		if err := b.startup(ctx); err != nil {
			return fmt.Errorf("startup: %w", err)
		}
		b.write()
	}
	if b.steps["clients"] {
		if err := b.clients(ctx); err != nil {
			return fmt.Errorf("clients: %w", err)
		}
		b.write()
	}
	if b.steps["realistic"] {
		if err := b.realistic(ctx); err != nil {
			return fmt.Errorf("realistic: %w", err)
		}
		b.write()
	}
	if b.steps["memory"] {
		if err := b.memory(ctx); err != nil {
			return err
		}
		b.write()
	}
	if b.steps["watch"] {
		for _, rate := range b.watchRates {
			for _, output := range watchOutputs {
				w, err := b.watch(ctx, rate, output, nil)
				if err != nil {
					return err
				}
				b.rep.watches = append(b.rep.watches, w)
				b.write()
			}
		}
	}
	if b.steps["offline"] {
		if err := b.offline(ctx); err != nil {
			return fmt.Errorf("offline: %w", err)
		}
		b.write()
	}
	if b.steps["mustgather"] {
		if err := b.mustGather(ctx); err != nil {
			return fmt.Errorf("must-gather: %w", err)
		}
		b.write()
	}
	if b.steps["recording"] {
		if err := b.recording(); err != nil {
			return fmt.Errorf("recording: %w", err)
		}
		b.write()
	}
	if b.steps["fleet"] {
		if err := b.fleet(ctx); err != nil {
			if b.rep.fleet != nil {
				b.rep.fleet.err = err.Error()
			}
			b.write()
			return fmt.Errorf("fleet: %w", err)
		}
		b.write()
	}
	if b.steps["mcp"] {
		err := b.mcpStep(ctx)
		b.write()
		if err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
	}
	if b.steps["usage"] {
		err := b.usageStep(ctx)
		b.write()
		if err != nil {
			return fmt.Errorf("usage: %w", err)
		}
	}
	b.rep.targets = b.evaluate()
	if b.steps["profile"] {
		if err := b.profiles(ctx); err != nil {
			b.logf("profiling failed: %v", err)
			b.rep.profileErr = err.Error()
		}
		b.write()
	}
	if b.steps["micro"] {
		if err := b.micro(ctx); err != nil {
			return err
		}
		b.write()
	}
	if b.ran("scale") {
		if err := b.scale(ctx); err != nil {
			return err
		}
	}
	if b.ran("load") {
		if err := b.load(ctx); err != nil {
			return fmt.Errorf("load: %w", err)
		}
		b.write()
	}
	if b.steps["soak"] {
		err := b.soak(ctx)
		b.write()
		if err != nil {
			return fmt.Errorf("soak: %w", err)
		}
	}
	b.rep.elapsed = time.Since(began)
	b.rep.loadEnd = loadavg1()
	b.write()
	b.logf("done in %s; wrote %s", b.rep.elapsed.Round(time.Second), b.out)
	return nil
}

func (b *bench) write() {
	b.rep.targets = b.evaluate()
	md := mergeReport(b.rep.markdown(), b.previous, b.ran)
	if err := os.WriteFile(b.out, []byte(md), 0o644); err != nil {
		b.logf("writing %s: %v", b.out, err)
	}
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench %s: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// cmdEnv is the environment of every measured command: the plugin first on
// PATH, the cluster's kubeconfig, a discovery cache of the bench's own, and
// none of the variables that would change what is measured.
func (b *bench) cmdEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "KUBECONFIG", k == "KUBECACHEDIR", k == "PATH", k == "GOGC", k == "GOMEMLIMIT",
			k == "GODEBUG", k == "GOMAXPROCS", strings.HasPrefix(k, "KUBE_FEATURE_"):
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"KUBECONFIG="+b.kubeconfig,
		"KUBECACHEDIR="+filepath.Join(b.workDir, "kubecache"),
		"PATH="+filepath.Join(b.root, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
}

// tool runs a hack/ script or go with the cluster's kubeconfig and returns
// its stdout; its stderr goes to ours.
func (b *bench) tool(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = b.root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+b.kubeconfig)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return string(out), nil
}

// seed creates the pods and widgets.
func (b *bench) seed(ctx context.Context) error {
	target := b.pods
	b.pods = 0
	if err := b.seedPods(ctx, target); err != nil {
		return err
	}
	b.logf("seeding %d widgets", b.widgets)
	start := time.Now()
	out, err := b.tool(ctx, "hack/seed", "widgets", "--count", strconv.Itoa(b.widgets))
	if err != nil {
		return err
	}
	b.rep.seedNotes = append(b.rep.seedNotes, fmt.Sprintf("%s (%.1fs)", strings.TrimSpace(out), time.Since(start).Seconds()))
	return nil
}

// seedPods adds pods until there are total.
func (b *bench) seedPods(ctx context.Context, total int) error {
	if total <= b.pods {
		return nil
	}
	b.logf("seeding pods %d..%d", b.pods, total)
	start := time.Now()
	out, err := b.tool(ctx, "hack/seed", "pods",
		"--count", strconv.Itoa(total-b.pods), "--start", strconv.Itoa(b.pods),
		"--namespaces", strconv.Itoa(seedNamespaces), "--nodes", strconv.Itoa(seedNodes),
		"--images", strconv.Itoa(seedImages), "--apps", strconv.Itoa(seedApps))
	if err != nil {
		return err
	}
	b.rep.seedNotes = append(b.rep.seedNotes, fmt.Sprintf("%s (%.1fs)", strings.TrimSpace(out), time.Since(start).Seconds()))
	b.pods = total
	return nil
}

// The cases.

func (b *bench) rawList(id, title, path, accept string) benchCase {
	return benchCase{id: id, title: title, check: expectRawList,
		argv: []string{b.rawlist, "--kubeconfig", b.kubeconfig, "--path", path, "--accept", accept}}
}

// decodeFloor is floor list: the same LIST as rawList, decoded by
// client-go's typed client (or, with metadata, its metadata client).
func (b *bench) decodeFloor(id, title string, metadata bool, pods int) benchCase {
	argv := []string{b.floor, "list", "--kubeconfig", b.kubeconfig}
	if metadata {
		argv = append(argv, "--metadata")
	}
	want := fmt.Sprintf("%d pods", pods)
	return benchCase{id: id, title: title, argv: argv, check: func(out string) error {
		if strings.TrimSpace(out) != want {
			return fmt.Errorf("expected %q, got %q", want, strings.TrimSpace(out))
		}
		return nil
	}}
}

func (b *bench) kubectl(id, title string, args ...string) benchCase {
	return benchCase{id: id, title: title, argv: append([]string{"kubectl"}, args...)}
}

func (b *bench) direct(id, title string, args ...string) benchCase {
	return benchCase{id: id, title: title, argv: append([]string{b.plugin}, args...)}
}

// dataSet is what the pod queries need to know about the pods of one
// cluster: the index values they ask for and how many pods match.
type dataSet struct {
	pods    int
	image   string // query 1's image
	byImage int    // pods with that image
	app     string // query 2's label app
	byApp   int    // pods with that label
	nodes   int    // nodes with pods: query 3 prints one row each
}

// seeded is the seeded data set at its current size.
func (b *bench) seeded() dataSet {
	return dataSet{pods: b.pods, image: queryImage, byImage: matching(b.pods, seedImages, 3),
		app: queryApp, byApp: matching(b.pods, seedApps, 3), nodes: min(b.pods, seedNodes)}
}

func q1Args(d dataSet) []string {
	return []string{"query", "pods", "-A", "--index", "image=" + d.image, "-o", "name"}
}

func q2Args(d dataSet) []string {
	return []string{"query", "pods", "-A", "--index", "label:app=" + d.app, "-o", "name"}
}

var (
	q3Args       = []string{"query", "pods", "-A", "--group-by", "node"}
	capacityArgs = []string{"capacity"}
	q4Args       = []string{"query", "widgets", "-A", "--indexer", "color={.spec.color}", "--index", "color=red", "-o", "name"}
)

func kubectlJSONPath(image string) string {
	return `{range .items[?(@.spec.containers[0].image=="` + image + `")]}{.metadata.name}{"\n"}{end}`
}

// podCases are the cases of queries 1 and 2 and their baselines, which the
// scale step repeats at more pods.
func (b *bench) podCases(d dataSet, withKubectlGet bool) []benchCase {
	q1, q2 := q1Args(d), q2Args(d)
	cases := []benchCase{
		b.rawList("raw-pb", "raw protobuf LIST of all pods", "/api/v1/pods", acceptProtobuf),
		b.kubectl("q1", "kubectl informer "+shellJoin(q1), append([]string{"informer"}, q1...)...),
		b.direct("q1-direct", "kubectl-informer "+shellJoin(q1)+" (binary run directly)", q1...),
		b.rawList("raw-meta", "raw metadata-only protobuf LIST of all pods", "/api/v1/pods", acceptMetadata),
		b.kubectl("q2", "kubectl informer "+shellJoin(q2), append([]string{"informer"}, q2...)...),
		b.direct("q2-direct", "kubectl-informer "+shellJoin(q2)+" (binary run directly)", q2...),
		b.decodeFloor("decode-pb", "LIST of all pods decoded into []v1.Pod", false, d.pods),
		b.decodeFloor("decode-meta", "metadata-only LIST of all pods decoded", true, d.pods),
	}
	cases[1].check, cases[2].check = expectLines(d.byImage), expectLines(d.byImage)
	cases[4].check, cases[5].check = expectLines(d.byApp), expectLines(d.byApp)
	if withKubectlGet {
		jp := kubectlJSONPath(d.image)
		c := b.kubectl("kubectl-get", "kubectl get pods -A -o jsonpath='"+jp+"'", "get", "pods", "-A", "-o", "jsonpath="+jp)
		c.check = expectLines(d.byImage)
		cases = append(cases, c)
	}
	return cases
}

// podQueryCases are every pod query and baseline: what the queries step
// and the realistic step both measure.
func (b *bench) podQueryCases(d dataSet) []benchCase {
	cases := b.podCases(d, true)
	q3 := b.kubectl("q3", "kubectl informer "+shellJoin(q3Args), append([]string{"informer"}, q3Args...)...)
	q3.check = expectLines(1 + d.nodes)
	rawPlain := b.rawList("raw-pb-plain", "raw protobuf LIST of all pods, uncompressed", "/api/v1/pods", acceptProtobuf)
	rawPlain.argv = append(rawPlain.argv, "--no-gzip")
	rawJSON := b.rawList("raw-json-pods", "raw JSON LIST of all pods", "/api/v1/pods", acceptJSON)
	q1 := q1Args(d)
	q5 := b.kubectl("q5", "KUBE_FEATURE_WatchListClient=false kubectl informer "+shellJoin(q1), append([]string{"informer"}, q1...)...)
	q5.env = []string{"KUBE_FEATURE_WatchListClient=false"}
	q5.check = expectLines(d.byImage)
	return append(cases, rawPlain, rawJSON, q3, q5)
}

// capacityCases are capacity and the raw LIST of nodes it joins to the
// pods: on the realistic set only, whose pods have requests and run on
// nodes that exist.
func (b *bench) capacityCases(d dataSet) []benchCase {
	c := b.kubectl("capacity", "kubectl informer "+shellJoin(capacityArgs), append([]string{"informer"}, capacityArgs...)...)
	c.check = expectLines(1 + d.nodes + 1) // header, a row per node, TOTAL
	return []benchCase{c, b.rawList("raw-nodes", "raw protobuf LIST of all nodes", "/api/v1/nodes", acceptProtobuf)}
}

func (b *bench) allCases() []benchCase {
	q4 := b.kubectl("q4", "kubectl informer "+shellJoin(q4Args), append([]string{"informer"}, q4Args...)...)
	q4.check = expectLines(matching(b.widgets, 5, 0))
	rawW := b.rawList("raw-json-widgets", "raw JSON LIST of all widgets", "/apis/example.com/v1/widgets", acceptJSON)
	pv := b.direct("plugin-version", "kubectl-informer version", "version")
	kv := b.kubectl("kubectl-version", "kubectl version --client", "version", "--client")
	return append(b.podQueryCases(b.seeded()), rawW, q4, pv, kv)
}

// queries measures every case: one warm-up run each (which also fills the
// discovery cache), then BENCH_RUNS rounds. Each round runs every case
// once, starting one case later than the round before, so slow drifts in
// background load spread over all cases.
func (b *bench) queries(ctx context.Context) error {
	results, err := b.measureCases(ctx, b.allCases())
	if err != nil {
		return err
	}
	b.rep.queries = results
	b.rep.queryPods = b.pods
	return nil
}

func (b *bench) measureCases(ctx context.Context, cases []benchCase) (map[string]*result, error) {
	return b.measureRounds(ctx, cases, b.runs, true)
}

// measureRounds measures cases as measureCases does, in runs rounds, with
// or without the warm-up run of each.
func (b *bench) measureRounds(ctx context.Context, cases []benchCase, runs int, warmUp bool) (map[string]*result, error) {
	results := map[string]*result{}
	for _, c := range cases {
		results[c.id] = &result{c: c}
		if !warmUp {
			continue
		}
		b.logf("warm-up %s", c.id)
		if _, err := b.measure(ctx, c); err != nil {
			return nil, err
		}
	}
	for round := 0; round < runs; round++ {
		b.waitForLoad(ctx)
		b.logf("round %d/%d (load %.2f)", round+1, runs, loadavg1())
		for i := range cases {
			c := cases[(i+round)%len(cases)]
			s, err := b.measure(ctx, c)
			if err != nil {
				return nil, err
			}
			r := results[c.id]
			if c.check != nil && r.warn == "" {
				if err := c.check(s.stdout); err != nil {
					r.warn = err.Error()
					b.logf("warning: %s: %v", c.id, err)
				}
			}
			r.samples = append(r.samples, s)
		}
	}
	// One more run of each, polled, to split its peak RSS. Kept out of the
	// timed rounds: polling costs the harness CPU on a small machine.
	b.logf("RSS breakdown runs")
	for _, c := range cases {
		r := results[c.id]
		var anon, file int64
		poll := func(pid int) {
			a, f := procRSS(pid)
			anon, file = max(anon, a), max(file, f)
		}
		if _, err := b.measureWatching(ctx, c, poll); err != nil {
			return nil, err
		}
		r.anonKiB, r.fileKiB = anon, file
	}
	return results, nil
}

// waitForLoad waits, at most BENCH_LOAD_WAIT, for the 1-minute load
// average to fall under BENCH_MAX_LOAD. Other builds on a shared machine
// inflate wall times; the load is recorded next to every result.
func (b *bench) waitForLoad(ctx context.Context) {
	deadline := time.Now().Add(b.loadWait)
	for l := loadavg1(); l > b.maxLoad && time.Now().Before(deadline); l = loadavg1() {
		b.logf("load %.2f is above %.2f; waiting (up to %s)", l, b.maxLoad, time.Until(deadline).Round(time.Second))
		b.rep.loadWaits++
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Second):
		}
	}
}

// scale repeats queries 1 and 2 and their floors at more pods with
// scaleCases, then query 1 without and through a warm cache started for
// that pod count (and stopped after it) with scaleWarmCases, the cache
// process's memory and what it served warm.
func (b *bench) scale(ctx context.Context) error {
	for _, n := range b.scalePods {
		if err := b.seedPods(ctx, n); err != nil {
			return err
		}
		results, err := b.measureCases(ctx, append(b.podCases(b.seeded(), false), b.scaleCases(b.seeded())...))
		if err != nil {
			return err
		}
		b.rep.scale = append(b.rep.scale, scaleResult{pods: n, results: results})
		b.write()
		var served map[string]string
		var first map[string]*result
		w, err := b.measureWarm(ctx, fmt.Sprintf("scale-%d-xdg", n), func(env []string) []benchCase {
			cases := b.scaleWarmCases(b.seeded(), env)
			var perr error
			if first, perr = b.measureFirstAfterSync(ctx, cases); perr != nil {
				b.logf("scale: the first answers after the cache synced: %v", perr)
			}
			if served, perr = b.probeWarm(ctx, env, cases); perr != nil {
				b.logf("scale: asking the warm cache what it served: %v", perr)
			}
			return cases
		})
		if err != nil {
			return fmt.Errorf("scale: the warm cache at %d pods: %w", n, err)
		}
		b.rep.scale[len(b.rep.scale)-1].warm = w
		b.rep.scale[len(b.rep.scale)-1].served = served
		b.rep.scale[len(b.rep.scale)-1].first = first
		b.write()
	}
	return nil
}

// memory runs benchtool memory in a process of its own for each informer
// kind and managedFields transform: the heap a synced cache of every pod
// holds, per pod.
func (b *bench) memory(ctx context.Context) error {
	b.rep.memoryLoad = loadavg1()
	for _, kind := range []string{"typed", "dynamic", "metadata"} {
		for _, mf := range []string{"drop", "summarize", "intern", "keep"} {
			b.logf("memory per cached pod: %s informer, managedFields %s", kind, mf)
			cmd := exec.CommandContext(ctx, b.self, "memory", "--kubeconfig", b.kubeconfig, "--kind", kind, "--managed-fields", mf)
			cmd.Env = b.cmdEnv()
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				return fmt.Errorf("benchtool memory --kind %s --managed-fields %s: %w", kind, mf, err)
			}
			var m memoryResult
			if err := json.Unmarshal(out, &m); err != nil {
				return fmt.Errorf("benchtool memory printed %q: %w", out, err)
			}
			b.rep.memory = append(b.rep.memory, m)
		}
	}
	return nil
}

// micro runs the Go micro-benchmarks.
func (b *bench) micro(ctx context.Context) error {
	b.logf("micro-benchmarks (-count=%d)", b.microCount)
	cmd := exec.CommandContext(ctx, "go", "test", "-run=^$", "-bench=.", "-benchmem",
		"-count="+strconv.Itoa(b.microCount), "./pkg/...")
	cmd.Dir = b.root
	cmd.Stderr = os.Stderr
	b.rep.microLoad = loadavg1()
	out, err := cmd.Output()
	b.rep.micro = string(out)
	if err != nil {
		return fmt.Errorf("go test -bench: %w", err)
	}
	return nil
}

func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " {}[]\"'$*?") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		quoted[i] = a
	}
	return strings.Join(quoted, " ")
}

func envString(key, def string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return def
}

func envInt(key string, def int, errs *[]error) int {
	v := envString(key, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q: not an integer", key, v))
		return def
	}
	return n
}

func envFloat(key string, def float64, errs *[]error) float64 {
	v := envString(key, "")
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q: not a number", key, v))
		return def
	}
	return f
}

func envInts(key string, def []int, errs *[]error) []int {
	v := envString(key, "")
	if v == "" {
		return def
	}
	var out []int
	for _, s := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			*errs = append(*errs, fmt.Errorf("%s=%q: want positive integers separated by commas", key, v))
			return def
		}
		out = append(out, n)
	}
	return out
}

// envDurations reads a list of durations separated by commas, each at
// least 0.
func envDurations(key string, def []time.Duration, errs *[]error) []time.Duration {
	v := envString(key, "")
	if v == "" {
		return def
	}
	var out []time.Duration
	for _, s := range strings.Split(v, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d < 0 {
			*errs = append(*errs, fmt.Errorf("%s=%q: want durations separated by commas", key, v))
			return def
		}
		out = append(out, d)
	}
	return out
}

func envDuration(key string, def time.Duration, errs *[]error) time.Duration {
	v := envString(key, "")
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q: %v", key, v, err))
		return def
	}
	return d
}
