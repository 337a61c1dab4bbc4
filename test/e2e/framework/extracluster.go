package framework

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// StartCluster starts another control plane (etcd and kube-apiserver, no
// nodes) for the test, beside the package's own, and stops it when the test
// ends; it then checks, as Main does for the package's cluster, that the
// plugin wrote nothing to it.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	s := mustSuite(t)
	dir, err := os.MkdirTemp(s.tmpDir, "extra-")
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "cluster")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := hackCommand(ctx, s.repoRoot, "cluster", "up", dir, "--owner-pid", strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatalf("starting another cluster: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if out, err := hackCommand(ctx, s.repoRoot, "cluster", "down", dir); err != nil {
			t.Errorf("stopping the cluster in %s: %v\n%s", dir, err, out)
		}
		if _, err := checkPluginReadOnly(dir); err != nil {
			t.Errorf("audit log in %s: %v", dir, err)
		}
	})
	c, err := loadCluster(s.repoRoot, dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
