// Package install tests the release the way a user gets it, offline: goreleaser
// builds the release archive for this machine from .goreleaser.yaml (make dist
// builds every platform's), hack/krew-manifest renders .krew.yaml for it as
// krew-release-bot does and checks it with krew's validate-krew-manifest, and
// the real krew (sigs.k8s.io/krew, pinned in hack/tools) installs it, upgrades
// it to a second release from a plugin index, and uninstalls it, while the
// plugin runs through the real kubectl.
package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// plugin is the plugin's name in the krew index, and so in .krew.yaml.
const plugin = "informer"

// release is one snapshot release goreleaser built for this machine.
type release struct {
	// tag is the release's version, with its v: the tag krew-release-bot
	// would render .krew.yaml for.
	tag string
	// archive is the archive for this machine.
	archive string
	// manifest is .krew.yaml rendered for the archive, with the release's
	// download URL.
	manifest string
	// indexManifest is the same with the URL the test serves the archive at.
	indexManifest string
}

func TestInstallFromRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the install test under -short: it builds the plugin with goreleaser, twice")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the install test runs bash scripts and the sh completion script; it does not run on Windows")
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("the install test runs the real kubectl, which is not on PATH: %v", err)
	}
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the install test needs %s on PATH: %v", tool, err)
		}
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()

	// The archives, served as a release's downloads are, for the index.
	releases := filepath.Join(work, "releases")
	server := httptest.NewServer(http.FileServer(http.Dir(releases)))
	t.Cleanup(server.Close)
	// Two snapshots of this tree, as if v0.1.0 and v0.2.0 were its last tags.
	start := time.Now()
	first := buildRelease(t, repo, releases, "v0.1.0", server.URL)
	t.Logf("goreleaser and hack/krew-manifest for %s took %s", first.tag, time.Since(start).Round(time.Second))
	start = time.Now()
	second := buildRelease(t, repo, releases, "v0.2.0", server.URL)
	t.Logf("goreleaser and hack/krew-manifest for %s took %s", second.tag, time.Since(start).Round(time.Second))

	// krew, as `kubectl krew`, with its root in the test's directory and a
	// default index the test makes.
	bin := filepath.Join(work, "bin")
	buildKrew(t, repo, filepath.Join(bin, "kubectl-krew"))
	krewRoot := filepath.Join(work, "krew")
	index := filepath.Join(work, "index")
	env := userEnv(t, bin, krewRoot, index)
	kubectlRun := func(t *testing.T, args ...string) string {
		t.Helper()
		return runCommand(t, env, kubectl, args...)
	}
	store := func(r release) string { return filepath.Join(krewRoot, "store", plugin, r.tag) }
	// The index is a git repository of plugins/NAME.yaml, as krew-index is;
	// krew clones it on first use (as a user's krew has), and pulls it before
	// an upgrade.
	git(t, "", "init", "--quiet", index)
	publish(t, index, first)
	kubectlRun(t, "krew", "update")

	t.Run("install the archive", func(t *testing.T) {
		// As the README says for an archive of `make dist`.
		kubectlRun(t, "krew", "install", "--manifest="+first.manifest, "--archive="+first.archive)
		for _, f := range []string{"kubectl-informer", "LICENSE", "kubectl_complete-informer"} {
			if _, err := os.Stat(filepath.Join(store(first), f)); err != nil {
				t.Errorf("krew did not install %s: %v", f, err)
			}
		}
		// krew does not link the completion script; the caveats say to copy it.
		copyFile(t, filepath.Join(store(first), "kubectl_complete-informer"), filepath.Join(krewRoot, "bin", "kubectl_complete-informer"))

		checkVersion(t, kubectlRun, repo, first.tag)
		out := kubectlRun(t, "informer", "version")
		if want := "kubectl-informer " + first.tag + " ("; !strings.HasPrefix(out, want) {
			t.Errorf("kubectl informer version = %q, want it to start with %q", out, want)
		}

		t.Run("kubectl completes the plugin's commands", func(t *testing.T) {
			// kubectl 1.26+ runs kubectl_complete-informer from PATH.
			out := kubectlRun(t, "__complete", "informer", "q")
			if got := completions(out); !slices.Contains(got, "query") {
				t.Errorf("kubectl __complete informer q = %q, want it to offer query", got)
			}
		})
		t.Run("kubectl completes index names through the plugin", func(t *testing.T) {
			out := kubectlRun(t, "__complete", "informer", "query", "po", "--index", "")
			got := completions(out)
			for _, want := range []string{"node=", "phase=", "label:"} {
				if !slices.Contains(got, want) {
					t.Errorf("kubectl __complete informer query po --index '' = %q, want it to offer %q", got, want)
				}
			}
		})

		kubectlRun(t, "krew", "uninstall", plugin)
		if err := os.Remove(filepath.Join(krewRoot, "bin", "kubectl_complete-informer")); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("install, upgrade and uninstall from an index", func(t *testing.T) {
		kubectlRun(t, "krew", "install", plugin)
		checkVersion(t, kubectlRun, repo, first.tag)

		publish(t, index, second)
		kubectlRun(t, "krew", "upgrade", plugin)
		checkVersion(t, kubectlRun, repo, second.tag)
		if _, err := os.Stat(store(first)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after the upgrade to %s, %s is still installed (%v)", second.tag, first.tag, err)
		}
		if out := kubectlRun(t, "krew", "list"); !strings.Contains(out, plugin) {
			t.Errorf("kubectl krew list = %q, want it to list %s", out, plugin)
		}

		kubectlRun(t, "krew", "uninstall", plugin)
		if _, err := os.Lstat(filepath.Join(krewRoot, "bin", "kubectl-informer")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after uninstall, krew's bin still has kubectl-informer (%v)", err)
		}
		if _, err := os.Stat(filepath.Join(krewRoot, "store", plugin)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after uninstall, krew's store still has %s (%v)", plugin, err)
		}
		if out, linked := kubectlRun(t, "plugin", "list"), filepath.Join(krewRoot, "bin", "kubectl-informer"); strings.Contains(out, linked) {
			t.Errorf("after uninstall, kubectl plugin list = %q, want no %s", out, linked)
		}
	})
}

// buildRelease builds a snapshot release of the tree with goreleaser, as
// `make dist` does but for this machine only and as if tag were the last
// tag, into releases/tag, and renders .krew.yaml for it with
// hack/krew-manifest: once with the release's URL, once with the URL the
// archive is served at under serverURL.
func buildRelease(t *testing.T, repo, releases, tag, serverURL string) release {
	t.Helper()
	dist := filepath.Join(releases, tag)
	config := hostConfig(t, repo, dist)
	runRepo(t, repo, []string{"GORELEASER_CURRENT_TAG=" + tag}, "hack/goreleaser", "release", "--snapshot", "--clean", "--config", config)

	r := release{tag: "v" + snapshotVersion(t, dist)}
	r.archive = filepath.Join(dist, "kubectl-informer_"+r.tag+"_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz")
	checkChecksums(t, dist, r.archive)
	checkArchive(t, repo, r.archive)

	r.manifest = filepath.Join(dist, plugin+".yaml")
	runRepo(t, repo, nil, "hack/krew-manifest", "-dist", dist, "-skip-missing")
	r.indexManifest = filepath.Join(dist, "index-"+plugin+".yaml")
	runRepo(t, repo, nil, "hack/krew-manifest", "-dist", dist, "-skip-missing",
		"-uri-prefix", serverURL+"/"+tag+"/", "-o", r.indexManifest)
	return r
}

// hostConfig writes .goreleaser.yaml with dist set and its builds cut to this
// machine's platform, and returns its path.
func hostConfig(t *testing.T, repo, dist string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var config map[string]any
	if err := yaml.Unmarshal(data, &config); err != nil {
		t.Fatalf("reading .goreleaser.yaml: %v", err)
	}
	builds, _ := config["builds"].([]any)
	if len(builds) == 0 {
		t.Fatalf(".goreleaser.yaml has no builds")
	}
	for _, b := range builds {
		build := b.(map[string]any)
		if !slices.Contains(toStrings(build["goos"]), runtime.GOOS) || !slices.Contains(toStrings(build["goarch"]), runtime.GOARCH) {
			t.Fatalf(".goreleaser.yaml builds %v on %v, not this machine's %s/%s", build["goos"], build["goarch"], runtime.GOOS, runtime.GOARCH)
		}
		build["goos"] = []string{runtime.GOOS}
		build["goarch"] = []string{runtime.GOARCH}
	}
	config["dist"] = dist
	out, err := yaml.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	path := dist + ".goreleaser.yaml"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func toStrings(v any) []string {
	var s []string
	list, _ := v.([]any)
	for _, x := range list {
		if str, ok := x.(string); ok {
			s = append(s, str)
		}
	}
	return s
}

// snapshotVersion is the version goreleaser gave the snapshot in dist.
func snapshotVersion(t *testing.T, dist string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Fatalf("goreleaser wrote no metadata.json: %v", err)
	}
	var metadata struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &metadata); err != nil {
		t.Fatal(err)
	}
	if metadata.Version == "" {
		t.Fatalf("goreleaser's metadata.json names no version: %s", data)
	}
	return metadata.Version
}

// checkChecksums checks that dist/checksums.txt lists the archive, and only
// it, with its sha256, in sha256sum's format.
func checkChecksums(t *testing.T, dist, archive string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatalf("goreleaser wrote no checksums.txt: %v", err)
	}
	content, err := os.ReadFile(archive)
	if err != nil {
		t.Fatalf("goreleaser did not write the archive krew's manifest names: %v", err)
	}
	sum := sha256.Sum256(content)
	if got, want := string(data), hex.EncodeToString(sum[:])+"  "+filepath.Base(archive)+"\n"; got != want {
		t.Errorf("checksums.txt = %q, want %q", got, want)
	}
}

// checkArchive checks what the archive holds: the binary, LICENSE, README.md
// and the completion script, each with root ownership, its mode and the
// commit's time, so that the archive is the same for the same commit.
func checkArchive(t *testing.T, repo, archive string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(archive), err)
	}
	commitTime, err := strconv.ParseInt(strings.TrimSpace(git(t, repo, "log", "-1", "--format=%ct")), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"kubectl-informer": 0o755, "kubectl_complete-informer": 0o755, "LICENSE": 0o644, "README.md": 0o644}
	got := map[string]int64{}
	r := tar.NewReader(gz)
	for {
		h, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(archive), err)
		}
		got[h.Name] = h.Mode
		if h.Uname != "root" || h.Gname != "root" || h.ModTime.Unix() != commitTime {
			t.Errorf("%s: %s is owned by %s:%s with time %s, want root:root and the commit's time %s",
				filepath.Base(archive), h.Name, h.Uname, h.Gname, h.ModTime.UTC(), time.Unix(commitTime, 0).UTC())
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s holds %v, want %v", filepath.Base(archive), got, want)
	}
	for name, mode := range want {
		if got[name] != mode {
			t.Errorf("%s: %s has mode %o, want %o", filepath.Base(archive), name, got[name], mode)
		}
	}
}

// buildKrew builds krew's command from the tools module into path.
func buildKrew(t *testing.T, repo, path string) {
	t.Helper()
	ctx, cancel := testContext(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", path, "sigs.k8s.io/krew/cmd/krew")
	cmd.Dir = filepath.Join(repo, "hack", "tools")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building krew from hack/tools: %v\n%s", err, out)
	}
}

// publish puts the release's manifest into the index and commits it, as
// krew-release-bot's pull request to krew-index does once merged.
func publish(t *testing.T, index string, r release) {
	t.Helper()
	copyFile(t, r.indexManifest, filepath.Join(index, "plugins", plugin+".yaml"))
	git(t, index, "add", "plugins")
	git(t, index, "-c", "user.name=install test", "-c", "user.email=install-test@example.com",
		"commit", "--quiet", "-m", "Update "+plugin+" to "+r.tag)
}

// checkVersion checks that `kubectl informer version` runs the release
// tagged tag, built from the repository's commit.
func checkVersion(t *testing.T, kubectlRun func(*testing.T, ...string) string, repo, tag string) {
	t.Helper()
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
	commit := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	date := strings.TrimSpace(git(t, repo, "log", "-1", "--format=%ct"))
	wantDate, err := strconv.ParseInt(date, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	gotDate, err := time.Parse(time.RFC3339, info.Date)
	if info.Version != tag || info.Commit != commit || err != nil || gotDate.Unix() != wantDate ||
		info.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("kubectl informer version -o json = %s, want version %s, commit %s, the commit's date %s, platform %s/%s",
			out, tag, commit, time.Unix(wantDate, 0).UTC().Format(time.RFC3339), runtime.GOOS, runtime.GOARCH)
	}
}

// runRepo runs a hack/ script from the repository root with extra
// environment, and fails the test with its output if it fails.
func runRepo(t *testing.T, repo string, env []string, script string, args ...string) {
	t.Helper()
	ctx, cancel := testContext(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(repo, script), args...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", script, strings.Join(args, " "), err, out.String())
	}
}

// git runs git in dir and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// testContext is cancelled a little before the test's deadline, so that a
// hanging command fails the test with its output instead of a panic.
func testContext(t *testing.T) (context.Context, context.CancelFunc) {
	if deadline, ok := t.Deadline(); ok {
		return context.WithDeadline(context.Background(), deadline.Add(-30*time.Second))
	}
	return context.WithCancel(context.Background())
}

// userEnv is the environment of a user with no cluster configured and krew
// set up in krewRoot with index as its default index: a fresh HOME, no
// KUBECONFIG, bin and krew's bin first on PATH.
func userEnv(t *testing.T, bin, krewRoot, index string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "HOME", "KUBECONFIG", "PATH", "BASH_COMP_DEBUG_FILE":
			continue
		}
		if strings.HasPrefix(kv, "KREW_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+t.TempDir(),
		"PATH="+strings.Join([]string{bin, filepath.Join(krewRoot, "bin"), os.Getenv("PATH")}, string(os.PathListSeparator)),
		"KREW_ROOT="+krewRoot,
		"KREW_DEFAULT_INDEX_URI="+index,
		"KREW_NO_UPGRADE_CHECK=1",
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

// copyFile copies src to dst, with src's mode, making dst's directory.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	info, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}
