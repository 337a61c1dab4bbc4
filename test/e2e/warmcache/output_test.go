package warmcache

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestSameOutputAsDirect runs queries through the cache and with --cache
// off and wants the same stdout, stderr and exit code, byte for byte:
// objects, groups, nothing found, errors.
func TestSameOutputAsDirect(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-same")
	configMaps(t, ns, 6)
	e.start("")
	queries := [][]string{
		{"query", "configmaps", "-n", ns, "-o", "json"},
		{"query", "configmaps", "-n", ns, "-o", "yaml"},
		{"query", "configmaps", "-n", ns, "--index", "label:app=b", "-o", "name"},
		{"query", "cm", "-A", "--index", "label:app in (a,b)", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name,K:.data.k"},
		{"query", "configmaps", "-n", ns, "--group-by", "label:app"},
		{"query", "configmaps", "-n", ns, "--filter", "object.data.k.endsWith('3')", "-o", "name"},
		{"query", "configmaps", "-n", ns + ",default", "--index", "label:app=a", "-o", "name"},
		{"query", "configmaps", "-n", ns, "--index", "label:app=none", "-o", "name"},
		{"query", "nosuchtype", "-n", ns},
		{"query", "configmaps", "-n", ns, "--index", "nosuchindex=x"},
	}
	for _, q := range queries {
		name := strings.Join(q, " ")
		warm := e.run("", q...)
		direct := e.run("", append(q, "--cache", "off")...)
		if warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr || warm.ExitCode != direct.ExitCode {
			t.Errorf("%s\nthrough the cache: %s\ndirect: %s", name, warm, direct)
		}
	}
	c := e.onlyCache()
	var held []string
	for _, tc := range c.Status.Caches {
		held = append(held, tc.Type+" "+strings.Join(tc.Namespaces, ",")+" "+strings.Join(tc.Indexes, ","))
	}
	// The queries went through the cache: it holds their types with the
	// indexes they asked for (those after the -A query read its informer).
	for _, want := range []string{"configmaps " + ns + " label:app", "configmaps  label:app"} {
		if !strings.Contains(strings.Join(held, "\n"), want) {
			t.Errorf("the cache holds %q, want %q among them", held, want)
		}
	}
}

// TestFreshObject creates a config map after the cache has its type: the
// next answers show it, without the cache being restarted.
func TestFreshObject(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-fresh")
	configMaps(t, ns, 2)
	e.start("")
	q := []string{"query", "configmaps", "-n", ns, "-o", "name"}
	if got := e.mustRun("", q...).Stdout; got != "configmap/cm-0\nconfigmap/cm-1\n" {
		t.Fatalf("first answer = %q", got)
	}
	createConfigMap(t, ns, "cm-new", "a")
	want := "configmap/cm-0\nconfigmap/cm-1\nconfigmap/cm-new\n"
	var got string
	waitFor(t, 10*time.Second, "the new config map in the cache's answer", func() bool {
		got = e.mustRun("", q...).Stdout
		return got == want
	})
	if c := e.onlyCache(); len(c.Status.Caches) != 1 || c.Status.Caches[0].Objects != 3 {
		t.Errorf("the cache holds %+v, want one type with 3 objects", c.Status.Caches)
	}
}

// TestFallbackWhenKilled kills the cache process, leaving its socket
// behind: a query says so in one line on stderr and answers directly.
func TestFallbackWhenKilled(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-killed")
	configMaps(t, ns, 2)
	e.start("")
	c := e.onlyCache()
	if err := syscall.Kill(c.Status.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the killed cache to exit", func() bool { return processGone(c.Status.Pid) })
	if _, err := os.Stat(c.Socket); err != nil {
		t.Fatalf("the killed cache's socket should be left behind: %v", err)
	}
	res := e.run("", "query", "configmaps", "-n", ns, "-o", "name")
	if res.ExitCode != 0 || res.Stdout != "configmap/cm-0\nconfigmap/cm-1\n" {
		t.Errorf("query with a dead cache: %s\nwant the direct answer", res)
	}
	lines := strings.Split(strings.TrimRight(res.Stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "warning: not using the warm cache: ") || !strings.Contains(lines[0], "asking the API server directly") {
		t.Errorf("stderr = %q, want one warning line", res.Stderr)
	}
	if res.Duration > 10*time.Second {
		t.Errorf("the fallback took %s", res.Duration)
	}
	if st := e.status(); len(st) != 1 || st[0].Status != nil || !strings.Contains(st[0].Error, "not answering") {
		t.Errorf("cache status with a dead socket = %+v, want it listed as not answering", st)
	}
	// start replaces the dead socket.
	e.start("")
	if c2 := e.onlyCache(); c2.Status.Pid == c.Status.Pid {
		t.Errorf("cache start after the kill did not start a new process")
	}
}

// TestNewTypeAfterStart queries a custom resource type before and after
// its CRD is installed: the cache, whose discovery is as old as the cache,
// finds the new type as a command of its own would.
func TestNewTypeAfterStart(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	e.start("")
	q := []string{"query", "widgets", "-A", "-o", "name"}
	before := e.run("", q...)
	if before.ExitCode != 1 || !strings.Contains(before.Stderr, `doesn't have a resource type "widgets"`) {
		t.Fatalf("query of widgets before the CRD: %s", before)
	}
	if _, err := framework.Current(t).Seed("crd"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteWidgetCRD(t) })
	warm := e.run("", q...)
	direct := e.run("", append(q, "--cache", "off")...)
	if warm.ExitCode != 0 || warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr {
		t.Errorf("query of widgets after the CRD, through the cache: %s\ndirect: %s", warm, direct)
	}
	if c := e.onlyCache(); len(c.Status.Caches) != 1 || c.Status.Caches[0].Type != "widgets.example.com" {
		t.Errorf("the cache holds %+v, want widgets.example.com", c.Status.Caches)
	}
}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// deleteWidgetCRD deletes the CRD hack/seed crd installs and waits until it
// is gone, so that the next run starts without the type.
func deleteWidgetCRD(t *testing.T) {
	t.Helper()
	crds := framework.Current(t).AdminDynamicClient().Resource(crdResource)
	ctx := context.Background()
	if err := crds.Delete(ctx, "widgets.example.com", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting the CRD widgets.example.com: %v", err)
		return
	}
	waitFor(t, time.Minute, "the CRD widgets.example.com to go", func() bool {
		_, err := crds.Get(ctx, "widgets.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}
