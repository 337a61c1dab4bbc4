package offline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// hostileTimeout bounds each command on a hostile file; hostileMaxRSS
// bounds its peak memory (the plugin alone takes about 50 MiB).
const (
	hostileTimeout = 30 * time.Second
	hostileMaxRSS  = 512 << 20
)

// validList is a small, valid dump: one pod.
const validList = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-1
    namespace: default
    resourceVersion: "12345"
    uid: 8d2ad0b5-5a8c-4bb1-9e5e-2b6b1c1f0a11
    creationTimestamp: "2026-11-26T01:00:00Z"
    labels: {app: web}
  spec:
    nodeName: node-1
    containers:
    - name: web
      image: registry.example.com/web:1.0
  status:
    phase: Running
`

// billionLaughs is the YAML alias bomb: nine aliases of nine aliases, nine
// levels deep, 9^9 strings once expanded.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol, namespace: default}\ndata:\n")
	b.WriteString("  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, l := range "bcdefghi" {
		name := string(l)
		b.WriteString("  " + name + ": &" + name + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n")
		prev = name
	}
	return b.String()
}

// TestHostileInput feeds --from files that are missing, not YAML or JSON,
// cut short, or built to exhaust a reader: each ends the command with exit
// code 1 and an error naming the file, within hostileTimeout and
// hostileMaxRSS, without a panic.
func TestHostileInput(t *testing.T) {
	framework.SkipIfShort(t)
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	write := func(name, data string) string {
		writeFile(t, path(name), data)
		return path(name)
	}

	// A real dump to cut short: a List of many pods, as kubectl writes it.
	var long strings.Builder
	long.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := range 200 {
		long.WriteString(strings.Replace(strings.SplitN(validList, "items:\n", 2)[1], "web-1", fmt.Sprintf("web-%d", i), 1))
	}
	longYAML := long.String()
	// Cut inside a quoted string two thirds in: no reader can take it as
	// complete.
	cut := strings.Index(longYAML[2*len(longYAML)/3:], `resourceVersion: "`) + 2*len(longYAML)/3 + len(`resourceVersion: "`) + 2
	truncatedYAML := write("truncated.yaml", longYAML[:cut])
	truncatedJSON := write("truncated.json", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"default"},"spec":{"containers":[{"name":"web","ima`)

	deepJSON := write("deep.json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","namespace":"default"},"data":{"x":`+
		strings.Repeat(`{"a":`, 200000)+`1`+strings.Repeat(`}`, 200000)+`}}`)
	deepYAML := write("deep.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep, namespace: default}\ndata:\n  x: "+
		strings.Repeat("[", 200000)+strings.Repeat("]", 200000)+"\n")
	// 5,000 levels of block mappings, a space of indentation each.
	deepBlockYAML := writeStream(t, path("deep-block.yaml"), func(w *bufio.Writer) {
		w.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep, namespace: default}\ndata:\n")
		for i := range 5000 {
			w.WriteString(strings.Repeat(" ", i+1) + "a:\n")
		}
	})
	// One document of 80 MB: a ConfigMap with one long value.
	huge := writeStream(t, path("huge.yaml"), func(w *bufio.Writer) {
		w.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: huge, namespace: default}\ndata:\n  blob: \"")
		chunk := strings.Repeat("0123456789abcdef", 4096)
		for range 80 << 20 / len(chunk) {
			w.WriteString(chunk)
		}
		w.WriteString("\"\n")
	})

	// A directory of valid files with one bad file deep inside.
	writeFile(t, filepath.Join(dir, "gather", "namespaces", "default", "core", "pods.yaml"), validList)
	badInDir := write(filepath.Join("gather", "namespaces", "shop", "apps", "deployments.yaml"), "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web\n")

	tests := []struct {
		name string
		from string
		// want are more strings the error must hold, besides the file.
		want []string
		args []string // the command; query pods -A by default
	}{
		{name: "missing file", from: path("no-such-dump.yaml")},
		{name: "missing directory", from: path("no-such-dir") + "/"},
		{name: "binary", from: write("binary.yaml", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xfe\x00\x01garbage\x00")},
		{name: "prose", from: write("ticket.yaml", "Hello,\nthe cluster broke at noon. Please help.\n")},
		{name: "a JSON array", from: write("array.json", `[1, 2, 3]`)},
		{name: "an object without kind", from: write("nokind.yaml", "metadata: {name: x}\nspec: {}\n")},
		{name: "truncated YAML", from: truncatedYAML, want: []string{"line"}},
		{name: "truncated JSON", from: truncatedJSON},
		{name: "billion laughs", from: write("laughs.yaml", billionLaughs())},
		{name: "deep JSON", from: deepJSON},
		{name: "deep flow YAML", from: deepYAML},
		{name: "deep block YAML", from: deepBlockYAML},
		{name: "a huge document", from: huge},
		{name: "a bad file in a directory", from: filepath.Join(dir, "gather"), want: []string{badInDir}},
		{name: "truncated YAML, tree", from: truncatedYAML, args: []string{"tree", "deploy/web"}},
		{name: "truncated YAML, capacity", from: truncatedYAML, args: []string{"capacity"}},
		{name: "truncated YAML, watch", from: truncatedYAML, args: []string{"watch", "pods", "-A"}},
		{name: "billion laughs, watch", from: path("laughs.yaml"), args: []string{"watch", "configmaps", "-A"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args == nil {
				args = []string{"query", "pods", "-A"}
			}
			r, rss := runBounded(t, append(append([]string{"informer"}, args...), "--from", tt.from)...)
			if r.TimedOut {
				t.Fatalf("not done within %s: %s", hostileTimeout, r)
			}
			if r.ExitCode != 1 {
				t.Errorf("exit code %d, want 1: %s", r.ExitCode, r)
			}
			if r.Stdout != "" {
				t.Errorf("stdout %q, want none", r.Stdout)
			}
			name := strings.TrimSuffix(tt.from, "/")
			for _, w := range append([]string{name}, tt.want...) {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("stderr does not name %q:\n%s", w, r.Stderr)
				}
			}
			if strings.Contains(r.Stderr, "goroutine ") || strings.Contains(r.Stderr, "panic") {
				t.Errorf("stderr shows a panic:\n%s", r.Stderr)
			}
			if lines := strings.Count(strings.TrimSpace(r.Stderr), "\n") + 1; lines > 3 {
				t.Errorf("the error takes %d lines, want a clear one:\n%s", lines, r.Stderr)
			}
			if rss > hostileMaxRSS {
				t.Errorf("peak RSS %d MiB, want at most %d MiB", rss>>20, hostileMaxRSS>>20)
			}
			t.Logf("%s in %s, peak RSS %d MiB: %s", tt.name, r.Duration.Round(time.Millisecond), rss>>20, strings.TrimSpace(r.Stderr))
		})
	}

	t.Run("a valid file beside them", func(t *testing.T) {
		r, _ := runBounded(t, "informer", "query", "pods", "-A", "-o", "name", "--from", write("valid.yaml", validList))
		if r.ExitCode != 0 || r.Stdout != "pod/web-1\n" {
			t.Errorf("query pods -A -o name --from valid.yaml: %s\nwant pod/web-1", r)
		}
	})
}

// writeStream writes path with write, through a buffer, and returns path:
// big files are not held in the test's memory, whose peak a child's
// rusage would count (see runBounded).
func writeStream(t *testing.T, path string, write func(w *bufio.Writer)) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	write(w)
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// runBounded runs kubectl ARGS as a user without a cluster (no
// --kubeconfig, KUBECONFIG naming a missing file) within hostileTimeout,
// and returns how it ended and its peak RSS in bytes. kubectl execs the
// plugin in its own process, so the peak is the larger of kubectl's own and
// the plugin's. Go starts children sharing its memory until they exec, and
// Linux then counts the test process's own peak in the child's: the figure
// is an upper bound of the plugin's peak, as tight as the test is small.
func runBounded(t *testing.T, args ...string) (framework.Result, int64) {
	t.Helper()
	kubectlPath, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostileTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath, args...)
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "KUBECONFIG", "HOME", "KUBECACHEDIR", "PATH":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env,
		"HOME="+t.TempDir(),
		"KUBECONFIG="+missingKubeconfig,
		"PATH="+filepath.Dir(framework.PluginBinary())+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	began := time.Now()
	err = cmd.Run()
	r := framework.Result{Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(began),
		TimedOut: errors.Is(ctx.Err(), context.DeadlineExceeded)}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		r.ExitCode = exitErr.ExitCode()
	case cmd.ProcessState != nil:
		r.ExitCode = cmd.ProcessState.ExitCode()
	default:
		t.Fatalf("running %s: %v", cmd, err)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // KiB on Linux
	}
	return r, rss
}
