// Package framework runs end-to-end tests of kubectl-informer against a real
// control plane: an etcd and a kube-apiserver started by hack/cluster, with
// the plugin built from this tree and driven through the real kubectl.
//
// An e2e package calls Main from its TestMain:
//
//	func TestMain(m *testing.M) { framework.Main(m) }
//
// A package that needs workloads (controllers, a scheduler, nodes) asks for
// simulated nodes: framework.Main(m, framework.WithNodes(3)); one that needs
// kubectl top adds framework.WithMetrics(), and one that needs GPUs
// framework.WithGPUs(g).
// A package that needs several clusters asks for a fleet:
// framework.Main(m, framework.WithClusters(3)) (see CurrentFleet).
//
// and each test starts with framework.SkipIfShort(t) (Current does the same).
// Main builds the plugin, brings the cluster up once for the package, runs
// the tests and always brings the cluster down again: on success, on
// failure, on a panic in TestMain's goroutine and on SIGINT or SIGTERM. For
// the cases Main cannot see (a panic in a test goroutine, a test timeout,
// SIGKILL), hack/cluster runs a watcher that stops the cluster once the
// test binary has exited.
//
// Environment:
//
//	KUBECTL_INFORMER_E2E_CLUSTER=DIR  use the cluster already running in DIR
//	                                  (hack/cluster up DIR) and leave it up
//	KUBECTL_INFORMER_E2E_KEEP=1       keep the temporary directory (logs,
//	                                  kubeconfigs) even when tests pass
//	KUBECTL_INFORMER_E2E_PLUGIN=PATH  use this kubectl-informer binary
//	                                  instead of building ./cmd/kubectl-informer
package framework

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// skipMessage is what tests print when they skip under -short.
const skipMessage = "e2e: skipped under -short (needs a real kube-apiserver)"

// suite is the state Main sets up for the tests of one package.
type suite struct {
	repoRoot     string
	tmpDir       string
	pluginBinary string
	home         string
	kubectl      string
	cluster      *Cluster
	// fleet is set when Main was given WithClusters; cluster is then its
	// first cluster.
	fleet *Fleet
	// external is true when the cluster was not started by Main, which
	// then leaves it running.
	external bool
}

// current is set by Main before the tests run and not changed while they
// run, so tests may read it from any goroutine.
var current *suite

// Option changes the cluster Main starts.
type Option func(*options)

type options struct {
	nodes    int
	clusters int
	metrics  bool
	gpus     int
}

// WithNodes makes Main start the cluster with kube-controller-manager,
// kube-scheduler and n nodes simulated by kwok (hack/cluster up --nodes n),
// so that Deployments roll out and pods are scheduled and run. An external
// cluster (KUBECTL_INFORMER_E2E_CLUSTER) must have been started so.
func WithNodes(n int) Option { return func(o *options) { o.nodes = n } }

// WithMetrics makes Main start metrics-server behind the metrics.k8s.io
// APIService as well (hack/cluster up --metrics), so that kubectl top works
// from its second sample on (Cluster.MetricResolution apart). A pod uses, in
// each container, the CPU and memory of its annotations
// kwok.x-k8s.io/usage-cpu and kwok.x-k8s.io/usage-memory (1m and 1Mi
// without them). It needs WithNodes. An external cluster must have been
// started so.
func WithMetrics() Option { return func(o *options) { o.metrics = true } }

// WithGPUs gives the odd-numbered simulated nodes g nvidia.com/gpu each
// (hack/cluster up --gpus g). It needs WithNodes. An external cluster must
// have been started so.
func WithGPUs(g int) Option { return func(o *options) { o.gpus = g } }

// Main is the TestMain of an e2e package. Under -short it prints that the
// tests are skipped and runs them (each skips itself). Otherwise it builds
// the plugin, starts a cluster, runs the tests, stops the cluster and exits
// with the tests' exit code.
func Main(m *testing.M, opts ...Option) {
	flag.Parse()
	if testing.Short() {
		fmt.Fprintln(os.Stderr, skipMessage)
		os.Exit(m.Run())
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	os.Exit(run(m, o))
}

func run(m *testing.M, o options) (code int) {
	s, err := setUp(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		if s != nil {
			s.tearDown(true)
		}
		return 1
	}
	current = s

	var once sync.Once
	tearDown := func(failed bool) { once.Do(func() { s.tearDown(failed) }) }

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	stopWatching := make(chan struct{})
	go func() {
		select {
		case sig := <-signals:
			fmt.Fprintf(os.Stderr, "e2e: got %v; stopping the cluster\n", sig)
			tearDown(true)
			os.Exit(2)
		case <-stopWatching:
		}
	}()
	defer func() {
		signal.Stop(signals)
		close(stopWatching)
		if r := recover(); r != nil {
			tearDown(true)
			panic(r)
		}
		tearDown(code != 0)
	}()
	code = m.Run()
	// Read-only by construction, checked over every request the plugin
	// sent in this package's run, whatever the tests did.
	dirs := []string{s.cluster.Dir}
	if s.fleet != nil {
		dirs = dirs[:0]
		for _, c := range s.fleet.Clusters {
			dirs = append(dirs, c.Dir)
		}
	}
	for _, dir := range dirs {
		verbs, err := checkPluginReadOnly(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "e2e: audit log in %s: %v\n", dir, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "e2e: audit log in %s: the plugin's requests, by verb (an event per stage): %v; none writes\n", filepath.Base(dir), verbs)
	}
	return code
}

// setUp builds the plugin and brings up the cluster. On error the returned
// suite, if not nil, holds what needs tearing down.
func setUp(o options) (*suite, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		return nil, fmt.Errorf("finding kubectl on PATH: %w", err)
	}
	tmp, err := os.MkdirTemp("", "kubectl-informer-e2e-")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary directory: %w", err)
	}
	s := &suite{
		repoRoot:     root,
		tmpDir:       tmp,
		pluginBinary: filepath.Join(tmp, "bin", "kubectl-informer"),
		home:         filepath.Join(tmp, "home"),
		kubectl:      kubectl,
	}
	if err := os.MkdirAll(s.home, 0o755); err != nil {
		return s, fmt.Errorf("creating %s: %w", s.home, err)
	}

	if err := s.installPlugin(); err != nil {
		return s, err
	}

	if o.clusters > 0 {
		f, err := startFleet(root, filepath.Join(tmp, "fleet"), o)
		s.fleet = f
		if err != nil {
			return s, err
		}
		s.cluster = f.Clusters[0]
		return s, nil
	}
	dir := os.Getenv("KUBECTL_INFORMER_E2E_CLUSTER")
	if dir != "" {
		s.external = true
	} else {
		dir = filepath.Join(tmp, "cluster")
		ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute) // includes a cold build
		defer cancel()
		args := []string{"up", dir, "--owner-pid", strconv.Itoa(os.Getpid())}
		if o.nodes > 0 {
			args = append(args, "--nodes", strconv.Itoa(o.nodes))
		}
		if o.metrics {
			args = append(args, "--metrics")
		}
		if o.gpus > 0 {
			args = append(args, "--gpus", strconv.Itoa(o.gpus))
		}
		out, err := hackCommand(ctx, root, "cluster", args...)
		os.Stderr.Write(out)
		if err != nil {
			// up stops what it started when it fails; the cluster is not
			// recorded so that tearDown does not run down.
			return s, fmt.Errorf("starting the cluster: %w", err)
		}
	}
	c, err := loadCluster(root, dir)
	s.cluster = c
	if err != nil {
		return s, err
	}
	if c.Nodes < o.nodes {
		return s, fmt.Errorf("the cluster in %s has %d simulated nodes; this package needs %d (hack/cluster up DIR --nodes %d)", dir, c.Nodes, o.nodes, o.nodes)
	}
	if o.metrics && !c.Metrics {
		return s, fmt.Errorf("the cluster in %s runs no metrics-server; this package needs one (hack/cluster up DIR --nodes N --metrics)", dir)
	}
	if c.GPUs != o.gpus {
		return s, fmt.Errorf("the cluster in %s has %d nvidia.com/gpu per GPU node; this package needs %d (hack/cluster up DIR --nodes N --gpus %d)", dir, c.GPUs, o.gpus, o.gpus)
	}
	return s, nil
}

// installPlugin builds the plugin from this tree into the temporary bin
// directory, or copies the one KUBECTL_INFORMER_E2E_PLUGIN names. Only the
// plugin is in that directory, which goes first on the commands' PATH.
func (s *suite) installPlugin() error {
	if err := os.MkdirAll(filepath.Dir(s.pluginBinary), 0o755); err != nil {
		return fmt.Errorf("creating the plugin directory: %w", err)
	}
	if prebuilt := os.Getenv("KUBECTL_INFORMER_E2E_PLUGIN"); prebuilt != "" {
		data, err := os.ReadFile(prebuilt)
		if err != nil {
			return fmt.Errorf("reading KUBECTL_INFORMER_E2E_PLUGIN: %w", err)
		}
		if err := os.WriteFile(s.pluginBinary, data, 0o755); err != nil {
			return fmt.Errorf("copying the plugin: %w", err)
		}
		fmt.Fprintf(os.Stderr, "e2e: using the plugin %s\n", prebuilt)
		return nil
	}
	began := time.Now()
	build := exec.Command("go", "build", "-o", s.pluginBinary, "./cmd/kubectl-informer")
	build.Dir = s.repoRoot
	build.Stdout = os.Stderr
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the plugin in %s (set KUBECTL_INFORMER_E2E_PLUGIN to use a built one): %w", s.repoRoot, err)
	}
	fmt.Fprintf(os.Stderr, "e2e: built %s in %s\n", s.pluginBinary, time.Since(began).Round(10*time.Millisecond))
	return nil
}

// tearDown stops the cluster (unless it is external) and removes the
// temporary directory, which it keeps, printing its path, if the tests
// failed or KUBECTL_INFORMER_E2E_KEEP is set.
func (s *suite) tearDown(failed bool) {
	if s.fleet != nil {
		if err := s.fleet.stop(s.repoRoot); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: stopping the fleet: %v\n", err)
			failed = true
		}
	} else if s.cluster != nil && !s.external {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		out, err := hackCommand(ctx, s.repoRoot, "cluster", "down", s.cluster.Dir)
		os.Stderr.Write(out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "e2e: stopping the cluster: %v\n", err)
			failed = true
		}
	}
	if failed || os.Getenv("KUBECTL_INFORMER_E2E_KEEP") != "" {
		fmt.Fprintf(os.Stderr, "e2e: kept %s (logs, kubeconfigs, audit log)\n", s.tmpDir)
		return
	}
	if err := os.RemoveAll(s.tmpDir); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: removing %s: %v\n", s.tmpDir, err)
	}
}

// SkipIfShort skips the test under -short, since it needs a real
// kube-apiserver.
func SkipIfShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip(skipMessage)
	}
}

// Current returns the cluster Main started for this package. It skips the
// test under -short and fails it if Main did not run.
func Current(t testing.TB) *Cluster {
	t.Helper()
	return mustSuite(t).cluster
}

func mustSuite(t testing.TB) *suite {
	t.Helper()
	SkipIfShort(t)
	if current == nil {
		t.Fatal("e2e: no cluster; call framework.Main(m) from TestMain")
	}
	return current
}

// PluginBinary returns the path of the kubectl-informer binary Main built
// from this tree, or "" if Main has not built one (under -short).
func PluginBinary() string {
	if current == nil {
		return ""
	}
	return current.pluginBinary
}

// repoRoot finds the root module by walking up from the working directory
// (the test's package directory) to the first go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("finding the repository root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// hackCommand runs hack/NAME with args from the repository root and returns
// its combined output.
func hackCommand(ctx context.Context, root, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(root, "hack", name), args...)
	cmd.Dir = root
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("hack/%s %v: %w", name, args, err)
	}
	return out, nil
}
