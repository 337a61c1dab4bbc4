// Package install tests the release the way a user gets it: it builds the
// archives with hack/dist, renders the krew manifest with
// hack/krew-manifest, installs the archive for this machine as
// `kubectl krew install --manifest=… --archive=…` would (offline, into a
// krew-like root), and runs the plugin and its completion through the real
// kubectl.
package install

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/internal/krew"
)

// testVersion is the version the test stamps into the archives.
const testVersion = "v0.0.0-installtest"

// platforms are the os/arch pairs hack/dist builds and .krew.yaml lists.
var platforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

func TestInstallFromRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the install test under -short: it cross-builds kubectl-informer for 6 platforms with hack/dist")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the install test runs bash scripts and the sh completion shim; it does not run on Windows")
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("the install test runs the real kubectl, which is not on PATH: %v", err)
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()

	// hack/dist and hack/krew-manifest, as `make dist krew-manifest` runs them.
	start := time.Now()
	runScript(t, repo, dist, "hack/dist", testVersion)
	t.Logf("hack/dist %s took %s", testVersion, time.Since(start).Round(time.Second))
	runScript(t, repo, dist, "hack/krew-manifest")
	rendered, err := os.ReadFile(filepath.Join(dist, "informer.yaml"))
	if err != nil {
		t.Fatalf("hack/krew-manifest wrote no manifest: %v", err)
	}
	plugin, err := krew.Parse(rendered)
	if err != nil {
		t.Fatal(err)
	}
	if err := krew.Validate(plugin, "informer"); err != nil {
		t.Fatalf("the rendered manifest is invalid: %v\n%s", err, rendered)
	}
	if plugin.Spec.Version != testVersion {
		t.Fatalf("manifest spec.version = %q, want %q", plugin.Spec.Version, testVersion)
	}

	t.Run("every platform", func(t *testing.T) {
		checkChecksums(t, dist)
		if len(plugin.Spec.Platforms) != len(platforms) {
			t.Errorf("the manifest has %d platforms, want %d (%s)", len(plugin.Spec.Platforms), len(platforms), strings.Join(platforms, ", "))
		}
		for _, p := range platforms {
			goos, goarch, _ := strings.Cut(p, "/")
			pl, ok := plugin.PlatformFor(goos, goarch)
			if !ok {
				t.Errorf("no platform of the manifest selects %s", p)
				continue
			}
			file, err := krew.FilePath(pl.URI)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			ext := ".tar.gz"
			if goos == "windows" {
				ext = ".zip"
			}
			if want := filepath.Join(dist, "kubectl-informer_"+testVersion+"_"+goos+"_"+goarch+ext); file != want {
				t.Errorf("%s: uri names %s, want %s", p, file, want)
			}
			sum, err := krew.SHA256File(file)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			if sum != pl.Sha256 {
				t.Errorf("%s: sha256 of %s = %s, the manifest says %s", p, filepath.Base(file), sum, pl.Sha256)
			}
			if err := krew.CheckArchive(pl, file); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	})

	// Install for this machine, as krew does: <root>/store/informer/<version>
	// holds the files, <root>/bin links the plugin. krew does not link the
	// completion script; the caveats tell users to, and so does the test.
	krewRoot := t.TempDir()
	pl, ok := plugin.PlatformFor(runtime.GOOS, runtime.GOARCH)
	if !ok {
		t.Fatalf("no platform of the manifest selects this machine, %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	archive, err := krew.FilePath(pl.URI)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := krew.Install(plugin, pl, archive, krewRoot)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(krewRoot, "store", "informer", testVersion, "kubectl-informer"); bin != want {
		t.Errorf("installed bin = %s, want %s", bin, want)
	}
	for _, f := range []string{"LICENSE", "kubectl_complete-informer"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(bin), f)); err != nil {
			t.Errorf("%s was not installed: %v", f, err)
		}
	}
	if _, err := krew.LinkBin(krewRoot, "informer", bin); err != nil {
		t.Fatal(err)
	}
	shim := filepath.Join(filepath.Dir(bin), "kubectl_complete-informer")
	if err := krew.Link(shim, filepath.Join(krewRoot, "bin", "kubectl_complete-informer")); err != nil {
		t.Fatal(err)
	}

	env := userEnv(t, filepath.Join(krewRoot, "bin"))
	kubectlRun := func(t *testing.T, args ...string) string {
		t.Helper()
		return runCommand(t, env, kubectl, args...)
	}

	t.Run("version", func(t *testing.T) {
		out := kubectlRun(t, "informer", "version")
		if want := "kubectl-informer " + testVersion + " ("; !strings.HasPrefix(out, want) {
			t.Errorf("kubectl informer version = %q, want it to start with %q", out, want)
		}
		if want := runtime.GOOS + "/" + runtime.GOARCH; !strings.Contains(out, want) {
			t.Errorf("kubectl informer version = %q, want it to name the platform %s", out, want)
		}
	})

	t.Run("version -o json", func(t *testing.T) {
		out := kubectlRun(t, "informer", "version", "-o", "json")
		var info struct {
			Version  string `json:"version"`
			Commit   string `json:"commit"`
			Date     string `json:"date"`
			Platform string `json:"platform"`
		}
		if err := json.Unmarshal([]byte(out), &info); err != nil {
			t.Fatalf("kubectl informer version -o json = %q: %v", out, err)
		}
		if info.Version != testVersion {
			t.Errorf("version = %q, want %q", info.Version, testVersion)
		}
		if want := runtime.GOOS + "/" + runtime.GOARCH; info.Platform != want {
			t.Errorf("platform = %q, want %q", info.Platform, want)
		}
		if head, err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output(); err == nil {
			if want := strings.TrimSpace(string(head)); info.Commit != want {
				t.Errorf("commit = %q, want %q", info.Commit, want)
			}
		}
		if info.Date == "" || (info.Date == "unknown" && info.Commit != "unknown") {
			t.Errorf("date = %q, want the commit's date", info.Date)
		}
	})

	t.Run("kubectl completes the plugin's commands", func(t *testing.T) {
		// kubectl 1.26+ runs kubectl_complete-informer from PATH.
		out := kubectlRun(t, "__complete", "informer", "q")
		if got := completions(out); !slices.Contains(got, "query") {
			t.Errorf("kubectl __complete informer q = %q, want it to offer query", got)
		}
	})

	t.Run("the plugin completes index names", func(t *testing.T) {
		out := kubectlRun(t, "informer", "__complete", "query", "po", "--index", "")
		got := completions(out)
		for _, want := range []string{"node=", "phase=", "label:"} {
			if !slices.Contains(got, want) {
				t.Errorf("kubectl informer __complete query po --index '' = %q, want it to offer %q", got, want)
			}
		}
	})

	t.Run("kubectl completes index names through the plugin", func(t *testing.T) {
		out := kubectlRun(t, "__complete", "informer", "query", "po", "--index", "")
		if got := completions(out); !slices.Contains(got, "node=") {
			t.Errorf("kubectl __complete informer query po --index '' = %q, want it to offer node=", got)
		}
	})
}

// runScript runs a hack/ script from the repository root with DIST_DIR set.
func runScript(t *testing.T, repo, dist, script string, args ...string) {
	t.Helper()
	ctx, cancel := testContext(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(repo, script), args...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "DIST_DIR="+dist)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(append([]string{script}, args...), " "), err, out.String())
	}
	t.Logf("%s:\n%s", strings.Join(append([]string{script}, args...), " "), out.String())
}

// testContext is cancelled a little before the test's deadline, so that a
// hanging command fails the test with its output instead of a panic.
func testContext(t *testing.T) (context.Context, context.CancelFunc) {
	if deadline, ok := t.Deadline(); ok {
		return context.WithDeadline(context.Background(), deadline.Add(-30*time.Second))
	}
	return context.WithCancel(context.Background())
}

// userEnv is the environment of a user with no cluster configured: a fresh
// HOME, no KUBECONFIG, and bin first on PATH.
func userEnv(t *testing.T, bin string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "HOME", "KUBECONFIG", "PATH", "BASH_COMP_DEBUG_FILE":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+t.TempDir(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
}

// runCommand runs name with args and env, fails the test if it fails, and
// returns its stdout.
func runCommand(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), args, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// completions returns the values of cobra __complete output, without the
// directive line and descriptions.
func completions(out string) []string {
	var values []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" || strings.HasPrefix(line, ":") || strings.HasPrefix(line, "Completion ended") {
			continue
		}
		value, _, _ := strings.Cut(line, "\t")
		values = append(values, value)
	}
	return values
}

// checkChecksums checks dist/checksums.txt against the archives: one line
// "<sha256>  <name>" per archive of every platform.
func checkChecksums(t *testing.T, dist string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatalf("hack/dist wrote no checksums.txt: %v", err)
	}
	listed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Errorf("checksums.txt line %q is not sha256sum format", line)
			continue
		}
		listed[name] = sum
	}
	if len(listed) != len(platforms) {
		t.Errorf("checksums.txt lists %d archives, want %d:\n%s", len(listed), len(platforms), data)
	}
	for name, sum := range listed {
		got, err := krew.SHA256File(filepath.Join(dist, name))
		if err != nil {
			t.Errorf("checksums.txt: %v", err)
			continue
		}
		if got != sum {
			t.Errorf("checksums.txt says %s for %s, its sha256 is %s", sum, name, got)
		}
	}
}
