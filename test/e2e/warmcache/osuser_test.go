package warmcache

import (
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// nobodyUID is the uid of the nobody user, which the test runs a cache as.
const nobodyUID = 65534

// TestOtherOSUserRefused runs a cache as the nobody user and connects to
// its socket as this test's user (root, who may enter any directory and
// open any socket): the server closes the connection before its hello
// (SO_PEERCRED), and says so in its log; a query as root that finds the
// socket directory owned by someone else warns and answers directly. It
// needs root and setpriv; without them it skips, except in CI (CI=true),
// where it fails: CI runs as root and must run it.
func TestOtherOSUserRefused(t *testing.T) {
	framework.SkipIfShort(t)
	if os.Getuid() != 0 {
		cannotRun(t, "needs root, to run a cache as another user (nobody)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		cannotRun(t, "needs setpriv, to run a cache as another user (nobody)")
	}
	ns := uniqueNamespace("warm-osuser")
	configMaps(t, ns, 1)

	// A directory nobody can read: the plugin, a copy of the admin
	// kubeconfig, nobody's home and runtime directory.
	base, err := os.MkdirTemp("", "warmcache-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(base, "kubectl-informer")
	copyFile(t, framework.PluginBinary(), plugin, 0o755)
	// The admin credentials: 0600, in a 0700 directory, both nobody's.
	kube := filepath.Join(base, "kube")
	kubeconfig := filepath.Join(kube, "admin.kubeconfig")
	home, runtime := filepath.Join(base, "home"), filepath.Join(base, "run")
	for _, d := range []string{kube, home, runtime} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, nobodyUID, nobodyUID); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, framework.Current(t).AdminKubeconfig(), kubeconfig, 0o600)
	if err := os.Chown(kubeconfig, nobodyUID, nobodyUID); err != nil {
		t.Fatal(err)
	}
	asNobody := func(args ...string) framework.Result {
		t.Helper()
		argv := append([]string{"--reuid=" + strconv.Itoa(nobodyUID), "--regid=" + strconv.Itoa(nobodyUID), "--clear-groups", plugin}, args...)
		return framework.Run(t, framework.Cmd{
			Binary:     setpriv,
			Args:       argv,
			Kubeconfig: kubeconfig,
			Env:        []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + runtime},
			Timeout:    60 * time.Second,
		})
	}
	if res := asNobody("cache", "start"); res.ExitCode != 0 {
		t.Fatalf("cache start as nobody: %s", res)
	}
	t.Cleanup(func() {
		if res := asNobody("cache", "stop", "--all"); res.ExitCode != 0 {
			t.Errorf("cache stop as nobody: %s", res)
		}
	})
	// nobody's own commands use it.
	if res := asNobody("query", "configmaps", "-n", ns, "-o", "name"); res.ExitCode != 0 || res.Stdout != "configmap/cm-0\n" || res.Stderr != "" {
		t.Fatalf("query as nobody through its cache: %s", res)
	}
	sockets, _ := filepath.Glob(filepath.Join(runtime, "kubectl-informer", "*.sock"))
	if len(sockets) != 1 {
		t.Fatalf("nobody's runtime directory holds sockets %v, want one", sockets)
	}
	status := asNobody("cache", "status")
	if !strings.Contains(status.Stdout, "configmaps") {
		t.Fatalf("cache status as nobody does not show the query's type: %s", status)
	}

	// root connects: the server hangs up without a byte.
	conn, err := net.DialTimeout("unix", sockets[0], 5*time.Second)
	if err != nil {
		t.Fatalf("dialling nobody's socket as root: %v", err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("reading from nobody's socket as root: %v (want the server to close the connection)", err)
	}
	if len(got) != 0 {
		t.Errorf("nobody's cache sent root %d bytes (%q), want none", len(got), got)
	}
	logs, _ := filepath.Glob(filepath.Join(runtime, "kubectl-informer", "*.log"))
	var log []byte
	waitFor(t, 5*time.Second, "the refusal in the cache's log", func() bool {
		log = nil
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			log = append(log, b...)
		}
		return bytes.Contains(log, []byte(`refused a connection from another user" peerUID=0`))
	})

	// root's query with the same runtime directory: the directory is not
	// root's, so the query warns and answers itself.
	res := framework.Run(t, framework.Cmd{
		Args:       []string{"informer", "query", "configmaps", "-n", ns, "-o", "name"},
		Kubeconfig: kubeconfig,
		Env:        []string{"XDG_RUNTIME_DIR=" + runtime},
	})
	if res.ExitCode != 0 || res.Stdout != "configmap/cm-0\n" || !strings.Contains(res.Stderr, "warning: not using the warm cache: ") {
		t.Errorf("root's query with nobody's cache directory: %s\nwant a warning and the direct answer", res)
	}
}

// cannotRun skips t for reason, or fails it when CI=true: a CI run must not
// report a test it could not run as passed.
func cannotRun(t *testing.T, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("cannot run in CI: %s", reason)
	}
	t.Skip(reason)
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}
