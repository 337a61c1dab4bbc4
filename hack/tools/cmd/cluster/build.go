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

// The versions the tools module pins. They name the cache directory, so a
// change to go.mod must come with a change here; build checks that they
// agree before it builds anything.
const (
	kubernetesVersion = "v1.37.2"
	etcdVersion       = "v3.7.0"

	kubernetesModule = "k8s.io/kubernetes"
	etcdModule       = "go.etcd.io/etcd/server/v3"
)

// binaries holds the paths of the built control-plane programs.
type binaries struct {
	APIServer string
	Etcd      string
}

// buildTarget is one program to build from the tools module.
type buildTarget struct {
	name    string
	pkg     string
	ldflags string
}

func buildTargets() []buildTarget {
	major, minor := "1", ""
	if parts := strings.Split(strings.TrimPrefix(kubernetesVersion, "v"), "."); len(parts) >= 2 {
		major, minor = parts[0], parts[1]
	}
	versionPkg := "k8s.io/component-base/version"
	return []buildTarget{
		{
			name: "kube-apiserver",
			pkg:  kubernetesModule + "/cmd/kube-apiserver",
			ldflags: strings.Join([]string{
				"-s", "-w",
				"-X", versionPkg + ".gitVersion=" + kubernetesVersion,
				"-X", versionPkg + ".gitMajor=" + major,
				"-X", versionPkg + ".gitMinor=" + minor,
				"-X", versionPkg + ".gitTreeState=clean",
				// A fixed date keeps the binary reproducible.
				"-X", versionPkg + ".buildDate=1970-01-01T00:00:00Z",
			}, " "),
		},
		{
			name:    "etcd",
			pkg:     etcdModule,
			ldflags: "-s -w",
		},
	}
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

// binaryDir is the cache directory for this Kubernetes version.
func binaryDir() (string, error) {
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "k8s-"+kubernetesVersion), nil
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

// ensureBinaries builds whichever of kube-apiserver and etcd is missing from
// the cache (all of them with force). Concurrent callers serialise on a lock
// file, and each binary is built under a temporary name and renamed into
// place, so a killed build never leaves a half-written binary behind.
func ensureBinaries(force bool) (binaries, error) {
	dir, err := binaryDir()
	if err != nil {
		return binaries{}, err
	}
	bins := binaries{
		APIServer: filepath.Join(dir, "kube-apiserver"),
		Etcd:      filepath.Join(dir, "etcd"),
	}
	var missing []buildTarget
	for _, t := range buildTargets() {
		if force || !isExecutable(filepath.Join(dir, t.name)) {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return bins, nil
	}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return binaries{}, fmt.Errorf("creating the cache directory: %w", err)
	}
	unlock, err := lockFile(filepath.Join(dir, ".build.lock"))
	if err != nil {
		return binaries{}, err
	}
	defer unlock()

	tools, err := toolsDir()
	if err != nil {
		return binaries{}, err
	}
	if err := checkModuleVersions(tools); err != nil {
		return binaries{}, err
	}
	removeStaleTemps(dir)
	for _, t := range missing {
		out := filepath.Join(dir, t.name)
		// Another process may have built it while we waited for the lock.
		if !force && isExecutable(out) {
			continue
		}
		if err := buildOne(tools, t, out); err != nil {
			return binaries{}, err
		}
	}
	return bins, nil
}

func buildOne(tools string, t buildTarget, out string) error {
	tmp := fmt.Sprintf("%s.tmp-%d", out, os.Getpid())
	fmt.Fprintf(os.Stderr, "cluster: building %s (%s); the first build takes several minutes\n", t.name, t.pkg)
	start := time.Now()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", t.ldflags, "-o", tmp, t.pkg)
	cmd.Dir = tools
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

// checkModuleVersions makes sure the versions in go.mod are the ones the
// cache directory is named after.
func checkModuleVersions(tools string) error {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Version}}", kubernetesModule, etcdModule)
	cmd.Dir = tools
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("listing module versions in %s: %w", tools, err)
	}
	want := map[string]string{kubernetesModule: kubernetesVersion, etcdModule: etcdVersion}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, version, _ := strings.Cut(line, " ")
		if w, ok := want[path]; ok && w != version {
			return fmt.Errorf("%s/go.mod has %s %s but hack/tools/cmd/cluster expects %s; update the constants in build.go", tools, path, version, w)
		}
	}
	return nil
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
