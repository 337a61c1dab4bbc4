package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// serviceClusterIPRange is the Service CIDR; its first address is the
	// kubernetes Service, which the serving certificate also covers.
	serviceClusterIPRange = "10.0.0.0/24"
	serviceIP             = "10.0.0.1"
	serviceAccountIssuer  = "https://kubernetes.default.svc.cluster.local"

	// stopGrace is how long down waits after SIGTERM before SIGKILL.
	stopGrace = 10 * time.Second
)

func absDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", dir, err)
	}
	return abs, nil
}

// upOptions are what up starts besides etcd and the primary kube-apiserver.
type upOptions struct {
	// nodes > 0 starts kube-controller-manager, kube-scheduler and kwok
	// with that many simulated nodes.
	nodes int
	// metrics starts metrics-server behind the metrics.k8s.io APIService,
	// and the apiservers with the aggregation layer's flags; it needs nodes.
	metrics bool
	// gpus > 0 gives odd-numbered nodes that many nvidia.com/gpu.
	gpus int
}

// up starts etcd and the primary kube-apiserver in dir and prepares them
// for tests, and what o asks for besides. If anything fails, it stops what
// it started.
func up(dirArg string, timeout time.Duration, ownerPID int, o upOptions) (err error) {
	began := time.Now()
	dir, err := absDir(dirArg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	var ownerStart uint64
	if ownerPID != 0 {
		var ok bool
		if _, ownerStart, ok = procState(ownerPID); !ok {
			return fmt.Errorf("--owner-pid %d: no such process", ownerPID)
		}
	}
	nodes := o.nodes
	if nodes < 0 || nodes > maxNodes {
		return fmt.Errorf("--nodes must be between 0 and %d, got %d", maxNodes, nodes)
	}
	if o.gpus < 0 {
		return fmt.Errorf("--gpus must not be negative, got %d", o.gpus)
	}
	if nodes == 0 && (o.metrics || o.gpus > 0) {
		return fmt.Errorf("--metrics and --gpus need simulated nodes: add --nodes N")
	}
	want := controlPlaneBins
	if nodes > 0 {
		want = append(append([]string{}, controlPlaneBins...), workloadBins...)
	}
	if o.metrics {
		want = append(want, metricsBins...)
	}
	bins, err := ensureBinaries(false, want...)
	if err != nil {
		return err
	}
	built := time.Now()

	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := loadState(dir)
	if err != nil {
		return err
	}
	if old != nil {
		if pid := old.runningPID(); pid != 0 {
			return fmt.Errorf("a cluster is already running in %s (pid %d); run hack/cluster down %s first", dir, pid, dirArg)
		}
		// A stopped cluster: start afresh. Its etcd member was bound to
		// other ports, so its data cannot be reused as it is; its logs
		// and extra apiservers would only mislead.
		if err := old.remove(); err != nil {
			return err
		}
	}

	p := pkiFiles{dir: filepath.Join(dir, "pki")}
	if err := ensurePKI(p, net.ParseIP(serviceIP)); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "audit-policy.yaml"), []byte(auditPolicy), 0o644); err != nil {
		return fmt.Errorf("writing the audit policy: %w", err)
	}
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	st := &clusterState{
		Dir:                   dir,
		KubernetesVersion:     kubernetesVersion,
		ServiceClusterIPRange: serviceClusterIPRange,
		CACert:                p.CACert(),
		AdminKubeconfig:       filepath.Join(dir, "admin.kubeconfig"),
		ViewerKubeconfig:      filepath.Join(dir, "viewer.kubeconfig"),
		APIServers:            map[string]*apiServerState{},
		Metrics:               o.metrics,
		GPUs:                  o.gpus,
	}
	defer func() {
		if err != nil {
			st.stopAll(-1)
			st.save()
		}
	}()

	if err := startEtcd(st, bins[etcdBin], ports[0], ports[1], timeout); err != nil {
		return err
	}
	primary := newAPIServer(st, p, primaryName, bins[apiServerBin], ports[2])
	st.APIServers[primaryName] = primary
	for _, kc := range []struct{ path, user string }{{st.AdminKubeconfig, adminUser}, {st.ViewerKubeconfig, viewerUser}} {
		if err := writeKubeconfig(kc.path, primary.URL, p, kc.user); err != nil {
			return err
		}
	}
	primary.Kubeconfig = st.AdminKubeconfig
	if err := st.startAPIServer(primary, p, timeout); err != nil {
		return err
	}
	ready := time.Now()

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := setupObjects(ctx, st.AdminKubeconfig); err != nil {
		return fmt.Errorf("setting up the cluster: %w; see %s", err, primary.Log)
	}
	if nodes > 0 {
		if err := st.startWorkloads(p, bins, nodes, timeout); err != nil {
			return err
		}
	}
	workloads := time.Now()
	if o.metrics {
		if err := st.startMetricsServer(p, bins, timeout); err != nil {
			return err
		}
	}
	metrics := time.Now()
	if ownerPID != 0 {
		if err := st.startReaper(ownerPID, ownerStart); err != nil {
			return err
		}
	}
	if err := st.save(); err != nil {
		return err
	}

	round := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	fmt.Printf("cluster: up in %s (build check %s, apiserver ready after %s", round(time.Since(began)), round(built.Sub(began)), round(ready.Sub(built)))
	if nodes > 0 {
		fmt.Printf(", controllers, scheduler and %d nodes Ready after %s", nodes, round(workloads.Sub(ready)))
	}
	if o.metrics {
		fmt.Printf(", metrics.k8s.io Available after %s", round(metrics.Sub(workloads)))
	}
	fmt.Printf(")\n")
	fmt.Printf("  kube-apiserver  %s (pid %d)\n", primary.URL, primary.PID)
	fmt.Printf("  etcd            %s (pid %d)\n", st.Etcd.ClientURL, st.Etcd.PID)
	for _, name := range componentBins {
		if c, ok := st.Components[name]; ok {
			fmt.Printf("  %-15s pid %d, log %s\n", name, c.PID, c.Log)
		}
	}
	if o.metrics {
		fmt.Printf("  metrics         kubectl top node / kubectl top pod -A, from the second sample (%s apart) on\n", metricResolution)
	}
	fmt.Printf("  admin           export KUBECONFIG=%s\n", st.AdminKubeconfig)
	fmt.Printf("  viewer          %s (get/list/watch pods in %s)\n", st.ViewerKubeconfig, viewerNamespace)
	fmt.Printf("  logs            %s %s %s\n", primary.Log, st.Etcd.Log, primary.AuditLog)
	fmt.Printf("  stop with       hack/cluster down %s\n", dirArg)
	return nil
}

func startEtcd(st *clusterState, bin string, clientPort, peerPort int, timeout time.Duration) error {
	clientURL := "http://127.0.0.1:" + strconv.Itoa(clientPort)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	st.Etcd = etcdState{
		Binary:     bin,
		ClientURL:  clientURL,
		ClientPort: clientPort,
		PeerPort:   peerPort,
		Log:        filepath.Join(st.Dir, "etcd.log"),
		Args: []string{
			"--name=default",
			"--data-dir=" + filepath.Join(st.Dir, "etcd"),
			"--listen-client-urls=" + clientURL,
			"--advertise-client-urls=" + clientURL,
			"--listen-peer-urls=" + peerURL,
			"--initial-advertise-peer-urls=" + peerURL,
			"--initial-cluster=default=" + peerURL,
			"--initial-cluster-state=new",
			// Test data is disposable; fsync dominates write latency.
			"--unsafe-no-fsync=true",
			"--log-level=warn",
		},
	}
	c, err := startDetached(bin, st.Etcd.Args, st.Etcd.Log)
	if err != nil {
		return err
	}
	st.Etcd.PID = c.pid
	if err := st.save(); err != nil {
		return err
	}
	return waitHTTP("etcd", clientURL+"/health", `"health":"true"`, nil, c, st.Etcd.Log, timeout)
}

// newAPIServer describes a kube-apiserver called name on port against the
// cluster's etcd. The endpoint reconciler is off ("none"): it refuses a
// loopback advertise address, and with several apiservers on 127.0.0.1 it
// would keep rewriting the port of the kubernetes Service's endpoints.
func newAPIServer(st *clusterState, p pkiFiles, name, bin string, port int) *apiServerState {
	logPath := filepath.Join(st.Dir, name+".log")
	auditLog := filepath.Join(st.Dir, name+"-audit.log")
	kubeconfig := filepath.Join(st.Dir, name+".kubeconfig")
	if name == primaryName {
		auditLog = filepath.Join(st.Dir, "audit.log")
		kubeconfig = st.AdminKubeconfig
	}
	a := &apiServerState{
		Name:       name,
		Binary:     bin,
		URL:        "https://127.0.0.1:" + strconv.Itoa(port),
		Port:       port,
		Kubeconfig: kubeconfig,
		Log:        logPath,
		AuditLog:   auditLog,
		Args: []string{
			"--etcd-servers=" + st.Etcd.ClientURL,
			"--bind-address=127.0.0.1",
			"--advertise-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(port),
			"--cert-dir=" + p.dir,
			"--tls-cert-file=" + p.ServingCert(),
			"--tls-private-key-file=" + p.ServingKey(),
			"--client-ca-file=" + p.CACert(),
			"--authorization-mode=RBAC",
			"--service-account-issuer=" + serviceAccountIssuer,
			"--service-account-key-file=" + p.SAPub(),
			"--service-account-signing-key-file=" + p.SAKey(),
			"--service-cluster-ip-range=" + serviceClusterIPRange,
			"--endpoint-reconciler-type=none",
			"--audit-policy-file=" + filepath.Join(st.Dir, "audit-policy.yaml"),
			"--audit-log-path=" + auditLog,
		},
	}
	if st.Metrics {
		a.Args = append(a.Args, aggregationFlags(p)...)
	}
	return a
}

// startAPIServer starts a (stopped) apiserver with its recorded flags and
// waits for /readyz. It also writes DIR/NAME.args, the exact command line,
// for people who want to start one by hand.
func (st *clusterState) startAPIServer(a *apiServerState, p pkiFiles, timeout time.Duration) error {
	if !alive(st.Etcd.PID) {
		return fmt.Errorf("etcd (pid %d) is not running; see %s", st.Etcd.PID, st.Etcd.Log)
	}
	if !portFree(a.Port) {
		return fmt.Errorf("port %d of %s is in use by another process (%w)", a.Port, a.Name, errPortTaken)
	}
	args := a.Binary
	for _, arg := range a.Args {
		args += " \\\n  " + shellQuote(arg)
	}
	if err := os.WriteFile(filepath.Join(st.Dir, a.Name+".args"), []byte(args+"\n"), 0o644); err != nil {
		return fmt.Errorf("writing the flags of %s: %w", a.Name, err)
	}
	c, err := startDetached(a.Binary, a.Args, a.Log)
	if err != nil {
		return err
	}
	a.PID = c.pid
	if err := st.save(); err != nil {
		return err
	}
	tlsConfig, err := adminTLS(p)
	if err != nil {
		return err
	}
	if err := waitHTTP(a.Name, a.URL+"/readyz", "ok", tlsConfig, c, a.Log, timeout); err != nil {
		stopProcess(a.PID, st.Dir, 0)
		a.PID = 0
		return err
	}
	return nil
}

// pids lists the recorded pids of etcd, the apiservers, the components and
// the reaper.
func (st *clusterState) pids() []int {
	pids := []int{st.Etcd.PID, st.ReaperPID}
	for _, a := range st.APIServers {
		pids = append(pids, a.PID)
	}
	for _, c := range st.Components {
		pids = append(pids, c.PID)
	}
	return pids
}

// remove deletes the etcd data, logs, audit logs and extra kubeconfigs of
// a stopped cluster; certificates stay.
func (st *clusterState) remove() error {
	paths := []string{filepath.Join(st.Dir, "etcd"), st.Etcd.Log, filepath.Join(st.Dir, "reaper.log")}
	for _, a := range st.APIServers {
		paths = append(paths, a.Log, a.AuditLog, filepath.Join(st.Dir, a.Name+".args"))
		if a.Name != primaryName {
			paths = append(paths, a.Kubeconfig)
		}
	}
	for _, c := range st.Components {
		paths = append(paths, c.Log)
	}
	for _, p := range paths {
		if p == "" || !strings.HasPrefix(p, st.Dir+string(filepath.Separator)) {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("removing the old cluster's files: %w", err)
		}
	}
	return nil
}

// runningPID returns the pid of some live process of the cluster, or 0.
func (st *clusterState) runningPID() int {
	if ownedBy(st.Etcd.PID, st.Dir) {
		return st.Etcd.PID
	}
	for _, a := range st.APIServers {
		if ownedBy(a.PID, st.Dir) {
			return a.PID
		}
	}
	for _, c := range st.Components {
		if ownedBy(c.PID, st.Dir) {
			return c.PID
		}
	}
	if ownedBy(st.ReaperPID, st.Dir) {
		return st.ReaperPID
	}
	return 0
}

// stopAll stops the reaper (unless it is self), the components (they would
// only log errors once the apiservers are gone), the apiservers, then etcd,
// each group in parallel, and clears their pids. grace < 0 means stopGrace.
func (st *clusterState) stopAll(grace time.Duration) error {
	if grace < 0 {
		grace = stopGrace
	}
	var errs []error
	// The pids to wait for init to reap: only live ones of ours.
	var stopped []int
	for _, pid := range st.pids() {
		if pid != os.Getpid() && ownedBy(pid, st.Dir) {
			stopped = append(stopped, pid)
		}
	}
	if st.ReaperPID != 0 && st.ReaperPID != os.Getpid() {
		if err := stopProcess(st.ReaperPID, st.Dir, grace); err != nil {
			errs = append(errs, fmt.Errorf("stopping the reaper: %w", err))
		}
	}
	st.ReaperPID = 0
	var mu sync.Mutex
	stopEach := func(procs map[string]*int) {
		var wg sync.WaitGroup
		for name, pid := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := stopProcess(*pid, st.Dir, grace); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("stopping %s: %w", name, err))
					mu.Unlock()
					return
				}
				*pid = 0
			}()
		}
		wg.Wait()
	}
	components := map[string]*int{}
	for name, c := range st.Components {
		components[name] = &c.PID
	}
	stopEach(components)
	apiservers := map[string]*int{}
	for name, a := range st.APIServers {
		apiservers[name] = &a.PID
	}
	stopEach(apiservers)
	if err := stopProcess(st.Etcd.PID, st.Dir, grace); err != nil {
		errs = append(errs, fmt.Errorf("stopping etcd: %w", err))
	} else {
		st.Etcd.PID = 0
	}
	waitReaped(stopped, 3*time.Second)
	if len(errs) > 0 {
		return fmt.Errorf("%v", errs)
	}
	return nil
}

// down stops everything up started in dir. It is safe to call twice.
func down(dirArg string) error {
	dir, err := absDir(dirArg)
	if err != nil {
		return err
	}
	if _, err := os.Stat(statePath(dir)); os.IsNotExist(err) {
		fmt.Printf("cluster: nothing to stop in %s\n", dir)
		return nil
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := loadState(dir)
	if err != nil {
		return err
	}
	if st == nil {
		return nil
	}
	began := time.Now()
	stopErr := st.stopAll(-1)
	if err := st.save(); err != nil {
		return err
	}
	if stopErr != nil {
		return stopErr
	}
	fmt.Printf("cluster: stopped %s in %s\n", dir, time.Since(began).Round(10*time.Millisecond))
	return nil
}

// loadRunning loads the state of dir for the verbs that need a cluster.
func loadRunning(dir string) (*clusterState, error) {
	st, err := loadState(dir)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, fmt.Errorf("no cluster in %s; run hack/cluster up %s first", dir, dir)
	}
	return st, nil
}

// lockRunning locks the cluster directory and loads the state of its running
// cluster; the caller must call unlock.
func lockRunning(dirArg string) (st *clusterState, unlock func(), err error) {
	dir, err := absDir(dirArg)
	if err != nil {
		return nil, nil, err
	}
	unlock, err = lockDir(dir)
	if err != nil {
		return nil, nil, err
	}
	st, err = loadRunning(dir)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return st, unlock, nil
}

// addAPIServer starts another kube-apiserver against the cluster's etcd.
func addAPIServer(dirArg, name string, timeout time.Duration, noWatchCache bool) error {
	if err := validateName(name); err != nil {
		return err
	}
	st, unlock, err := lockRunning(dirArg)
	if err != nil {
		return err
	}
	defer unlock()
	dir := st.Dir
	if _, ok := st.APIServers[name]; ok {
		return fmt.Errorf("apiserver %s already exists in %s; use start-apiserver or stop-apiserver", name, dir)
	}
	primary, ok := st.APIServers[primaryName]
	if !ok {
		return fmt.Errorf("no primary apiserver recorded in %s", dir)
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	p := pkiFiles{dir: filepath.Join(dir, "pki")}
	a := newAPIServer(st, p, name, primary.Binary, ports[0])
	if noWatchCache {
		// Watches then go straight to etcd, so a compacted revision
		// gives "410 Gone" as soon as a watch resumes from it.
		a.Args = append(a.Args, "--watch-cache=false")
	}
	if err := writeKubeconfig(a.Kubeconfig, a.URL, p, adminUser); err != nil {
		return err
	}
	st.APIServers[name] = a
	if err := st.startAPIServer(a, p, timeout); err != nil {
		delete(st.APIServers, name)
		st.save()
		return err
	}
	if err := st.save(); err != nil {
		return err
	}
	fmt.Printf("cluster: apiserver %s at %s (pid %d), kubeconfig %s\n", name, a.URL, a.PID, a.Kubeconfig)
	return nil
}

// stopAPIServer stops one apiserver and keeps its port and flags for
// start-apiserver.
func stopAPIServer(dirArg, name string, kill bool) error {
	st, unlock, err := lockRunning(dirArg)
	if err != nil {
		return err
	}
	defer unlock()
	dir := st.Dir
	a, ok := st.APIServers[name]
	if !ok {
		return fmt.Errorf("no apiserver %s in %s", name, dir)
	}
	grace := stopGrace
	if kill {
		grace = 0
	}
	pid := a.PID
	if err := stopProcess(pid, dir, grace); err != nil {
		return fmt.Errorf("stopping %s: %w", name, err)
	}
	a.PID = 0
	waitReaped([]int{pid}, 3*time.Second)
	if err := st.save(); err != nil {
		return err
	}
	fmt.Printf("cluster: stopped apiserver %s (port %d)\n", name, a.Port)
	return nil
}

// startAPIServer starts a stopped apiserver again on its old port.
func startAPIServer(dirArg, name string, timeout time.Duration) error {
	st, unlock, err := lockRunning(dirArg)
	if err != nil {
		return err
	}
	defer unlock()
	dir := st.Dir
	a, ok := st.APIServers[name]
	if !ok {
		return fmt.Errorf("no apiserver %s in %s", name, dir)
	}
	if ownedBy(a.PID, dir) {
		fmt.Printf("cluster: apiserver %s is already running (pid %d)\n", name, a.PID)
		return nil
	}
	p := pkiFiles{dir: filepath.Join(dir, "pki")}
	if err := st.startAPIServer(a, p, timeout); err != nil {
		st.save()
		return err
	}
	if err := st.save(); err != nil {
		return err
	}
	fmt.Printf("cluster: apiserver %s at %s (pid %d)\n", name, a.URL, a.PID)
	return nil
}

// status prints the processes of the cluster in dir.
func status(dirArg string) error {
	dir, err := absDir(dirArg)
	if err != nil {
		return err
	}
	st, err := loadRunning(dir)
	if err != nil {
		return err
	}
	state := func(pid int) string {
		if ownedBy(pid, dir) {
			return fmt.Sprintf("running (pid %d)", pid)
		}
		return "stopped"
	}
	fmt.Printf("%-24s %-28s %s\n", "etcd", st.Etcd.ClientURL, state(st.Etcd.PID))
	names := make([]string, 0, len(st.APIServers))
	for name := range st.APIServers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a := st.APIServers[name]
		fmt.Printf("%-24s %-28s %s\n", name, a.URL, state(a.PID))
	}
	for _, name := range componentBins {
		if c, ok := st.Components[name]; ok {
			health := strings.TrimSuffix(strings.TrimSuffix(c.HealthURL, "/healthz"), "/livez")
			fmt.Printf("%-24s %-28s %s\n", name, health, state(c.PID))
		}
	}
	if st.Nodes > 0 {
		fmt.Printf("%-24s %d simulated by kwok\n", "nodes", st.Nodes)
	}
	if st.ReaperPID != 0 {
		fmt.Printf("%-24s %-28s %s\n", "reaper", "", state(st.ReaperPID))
	}
	return nil
}

// startReaper starts, detached, a copy of this program that runs down once
// the owner process exits, so a test binary that dies without its teardown
// (a panic in a test goroutine, a timeout, SIGKILL) leaves no processes.
func (st *clusterState) startReaper(ownerPID int, ownerStart uint64) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program: %w", err)
	}
	args := []string{"reap", st.Dir, "--owner-pid", strconv.Itoa(ownerPID), "--owner-start", strconv.FormatUint(ownerStart, 10)}
	c, err := startDetached(self, args, filepath.Join(st.Dir, "reaper.log"))
	if err != nil {
		return err
	}
	st.ReaperPID = c.pid
	return nil
}

// reap waits for the owner process to exit, then stops the cluster.
func reap(dir string, ownerPID int, ownerStart uint64) error {
	for i := 0; ; i++ {
		time.Sleep(250 * time.Millisecond)
		state, start, ok := procState(ownerPID)
		if !ok || state == "Z" || start != ownerStart {
			break
		}
		if i%8 == 7 {
			// Stop watching once the cluster was stopped or handed over.
			st, err := loadState(dir)
			if err != nil || st == nil || st.ReaperPID != os.Getpid() {
				return err
			}
		}
	}
	fmt.Printf("%s: owner pid %d exited; stopping the cluster\n", time.Now().Format(time.RFC3339), ownerPID)
	return down(dir)
}
