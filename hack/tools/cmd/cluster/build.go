package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The versions the tools module (and, for kwok, hack/kwok; for
// metrics-server, hack/metrics-server) pins. They name
// the cache directory (and kwok's and metrics-server's binaries in it), so a
// change to a go.mod must come with a change here; build checks that they
// agree before it builds anything.
const (
	kubernetesVersion    = "v1.37.2"
	etcdVersion          = "v3.7.0"
	kwokVersion          = "v0.8.0"
	metricsServerVersion = "v0.8.0"

	kubernetesModule    = "k8s.io/kubernetes"
	etcdModule          = "go.etcd.io/etcd/server/v3"
	kwokModule          = "sigs.k8s.io/kwok"
	metricsServerModule = "sigs.k8s.io/metrics-server"
)

// The programs build knows, by the name of their binary.
const (
	apiServerBin         = "kube-apiserver"
	etcdBin              = "etcd"
	controllerManagerBin = "kube-controller-manager"
	schedulerBin         = "kube-scheduler"
	kwokBin              = "kwok"
	metricsServerBin     = "metrics-server"
)

// controlPlaneBins are what every cluster runs; workloadBins are what
// up --nodes adds: controllers, a scheduler and simulated nodes;
// metricsBins are what up --metrics adds: metrics-server, which serves
// metrics.k8s.io from what kwok's simulated kubelets report.
var (
	controlPlaneBins = []string{apiServerBin, etcdBin}
	workloadBins     = []string{controllerManagerBin, schedulerBin, kwokBin}
	metricsBins      = []string{metricsServerBin}
	// componentBins are the processes besides etcd and the apiservers, in
	// the order they start.
	componentBins = append(append([]string{}, workloadBins...), metricsBins...)
)

// binaries holds the paths of the built programs, by binary name.
type binaries map[string]string

// buildTarget is one program to build: pkg from the module in dir
// ("tools", "kwok" or "metrics-server", the hack/ modules beside each other).
type buildTarget struct {
	name    string
	module  string
	pkg     string
	ldflags string
}

// buildTargets lists every program build knows. The Kubernetes components
// get the version stamps a release build has, so that kubectl version and
// the components' own checks see v1.37.2.
func buildTargets() map[string]buildTarget {
	major, minor := "1", ""
	if parts := strings.Split(strings.TrimPrefix(kubernetesVersion, "v"), "."); len(parts) >= 2 {
		major, minor = parts[0], parts[1]
	}
	versionPkg := "k8s.io/component-base/version"
	kubeLDFlags := strings.Join([]string{
		"-s", "-w",
		"-X", versionPkg + ".gitVersion=" + kubernetesVersion,
		"-X", versionPkg + ".gitMajor=" + major,
		"-X", versionPkg + ".gitMinor=" + minor,
		"-X", versionPkg + ".gitTreeState=clean",
		// A fixed date keeps the binary reproducible.
		"-X", versionPkg + ".buildDate=1970-01-01T00:00:00Z",
	}, " ")
	targets := map[string]buildTarget{
		etcdBin: {name: etcdBin, module: "tools", pkg: etcdModule, ldflags: "-s -w"},
		kwokBin: {name: kwokBin, module: "kwok", pkg: kwokModule + "/cmd/kwok", ldflags: "-s -w"},
		// metrics-server is built with the k8s.io modules it pins, in a
		// module of its own (hack/metrics-server/go.mod says why).
		metricsServerBin: {name: metricsServerBin, module: "metrics-server", pkg: metricsServerModule + "/cmd/metrics-server", ldflags: "-s -w"},
	}
	for _, name := range []string{apiServerBin, controllerManagerBin, schedulerBin} {
		targets[name] = buildTarget{name: name, module: "tools", pkg: kubernetesModule + "/cmd/" + name, ldflags: kubeLDFlags}
	}
	return targets
}

// cacheRoot is where built programs live, outside the git tree.
func cacheRoot() (string, error) {
	if dir := os.Getenv("KUBECTL_INFORMER_CACHE"); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory (set KUBECTL_INFORMER_CACHE): %w", err)
	}
	return filepath.Join(home, ".cache", "kubectl-informer"), nil
}

// binaryDir is the cache directory for this Kubernetes version. kwok's and
// metrics-server's versions are part of their binaries' names there.
func binaryDir() (string, error) {
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "k8s-"+kubernetesVersion), nil
}

// binaryPath is where the binary called name lives in dir.
func binaryPath(dir, name string) string {
	switch name {
	case kwokBin:
		return filepath.Join(dir, kwokBin+"-"+kwokVersion)
	case metricsServerBin:
		return filepath.Join(dir, metricsServerBin+"-"+metricsServerVersion)
	}
	return filepath.Join(dir, name)
}

// toolsDir is the tools module, which the hack/cluster wrapper passes in.
func toolsDir() (string, error) {
	dir := os.Getenv("KUBECTL_INFORMER_TOOLS_DIR")
	if dir == "" {
		return "", fmt.Errorf("KUBECTL_INFORMER_TOOLS_DIR is not set; run this program through hack/cluster")
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("checking the tools module: %w", err)
	}
	return dir, nil
}

// moduleDir is the directory of the hack/ module called name ("tools",
// "kwok" or "metrics-server").
func moduleDir(name string) (string, error) {
	tools, err := toolsDir()
	if err != nil {
		return "", err
	}
	if name == "tools" {
		return tools, nil
	}
	return filepath.Join(filepath.Dir(tools), name), nil
}

// ensureBinaries builds whichever of the named programs is missing from the
// cache (all of them with force) and returns their paths. Concurrent callers
// serialise on a lock file, and each binary is built under a temporary name
// and renamed into place, so a killed build never leaves a half-written
// binary behind. Building kwok also writes its stage configuration
// (kwokStagesPath) beside it.
func ensureBinaries(force bool, names ...string) (binaries, error) {
	dir, err := binaryDir()
	if err != nil {
		return nil, err
	}
	targets := buildTargets()
	bins := binaries{}
	var missing []buildTarget
	for _, name := range names {
		t, ok := targets[name]
		if !ok {
			return nil, fmt.Errorf("no build target %q", name)
		}
		bins[name] = binaryPath(dir, name)
		if force || !installed(dir, name) {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return bins, nil
	}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the cache directory: %w", err)
	}
	unlock, err := lockFile(filepath.Join(dir, ".build.lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()

	if err := checkModuleVersions(); err != nil {
		return nil, err
	}
	removeStaleTemps(dir)
	for _, t := range missing {
		// Another process may have built it while we waited for the lock.
		if !force && installed(dir, t.name) {
			continue
		}
		if err := buildOne(t, binaryPath(dir, t.name)); err != nil {
			return nil, err
		}
		if t.name == kwokBin {
			if err := writeKwokStages(dir); err != nil {
				return nil, err
			}
		}
	}
	return bins, nil
}

// installed reports whether the program called name, and for kwok its
// stages, are in dir.
func installed(dir, name string) bool {
	if !isExecutable(binaryPath(dir, name)) {
		return false
	}
	if name == kwokBin {
		_, err := os.Stat(kwokStagesPath(dir))
		return err == nil
	}
	return true
}

func buildOne(t buildTarget, out string) error {
	mod, err := moduleDir(t.module)
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.tmp-%d", out, os.Getpid())
	fmt.Fprintf(os.Stderr, "cluster: building %s (%s); the first build takes several minutes\n", t.name, t.pkg)
	start := time.Now()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", t.ldflags, "-o", tmp, t.pkg)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("building %s: %w", t.name, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("installing %s: %w", t.name, err)
	}
	fmt.Fprintf(os.Stderr, "cluster: built %s in %s\n", out, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// checkModuleVersions makes sure the versions in the go.mod files are the
// ones the cache names its binaries after.
func checkModuleVersions() error {
	for _, m := range []struct {
		module string
		want   map[string]string
	}{
		{"tools", map[string]string{kubernetesModule: kubernetesVersion, etcdModule: etcdVersion}},
		{"kwok", map[string]string{kwokModule: kwokVersion}},
		{"metrics-server", map[string]string{metricsServerModule: metricsServerVersion}},
	} {
		dir, err := moduleDir(m.module)
		if err != nil {
			return err
		}
		for path, want := range m.want {
			got, err := moduleInfo(dir, "{{.Version}}", path)
			if err != nil {
				return err
			}
			if got != want {
				return fmt.Errorf("%s/go.mod has %s %s but hack/tools/cmd/cluster expects %s; update the constants in build.go", dir, path, got, want)
			}
		}
	}
	return nil
}

// moduleInfo runs go list -m -f format for the module path, as the module
// in dir requires it.
func moduleInfo(dir, format, path string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", format, path)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s in %s: %w", path, dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// removeStaleTemps deletes temporary binaries that killed builds left.
func removeStaleTemps(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*"))
	for _, m := range matches {
		os.Remove(m)
	}
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// lockFile takes an exclusive flock on path, creating it if needed, and
// returns the function that releases it. The descriptor is close-on-exec,
// so processes started while it is held do not inherit the lock.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
