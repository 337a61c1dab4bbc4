package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Fleet is several control planes started by `hack/cluster fleet up`, each
// its own etcd, kube-apiserver and PKI, with one kubeconfig naming them.
type Fleet struct {
	// Dir holds the fleet: DIR/fleet-I is cluster I's hack/cluster DIR.
	Dir string
	// Kubeconfig has one admin context per cluster (Contexts), one viewer
	// context per cluster (ViewerContexts) and the Dead context.
	Kubeconfig string
	// Contexts are the admin contexts fleet-1..fleet-N, in order.
	Contexts []string
	// ViewerContexts are viewer-1..viewer-N: user viewer at cluster I, who
	// may get, list and watch pods in namespace team-a only.
	ViewerContexts []string
	// Dead is a context whose server nothing listens on.
	Dead string
	// Clusters are the control planes, in the order of Contexts.
	Clusters []*Cluster
}

// WithClusters makes Main start a fleet of n control planes in parallel
// (hack/cluster fleet up DIR --clusters n) instead of one cluster. Current
// then returns the first of them and CurrentFleet all of them. It cannot
// be combined with WithNodes, WithMetrics, WithGPUs or
// KUBECTL_INFORMER_E2E_CLUSTER.
func WithClusters(n int) Option { return func(o *options) { o.clusters = n } }

// fleetState is DIR/fleet.json, written by hack/cluster fleet up.
type fleetState struct {
	Kubeconfig string `json:"kubeconfig"`
	Dead       string `json:"deadContext"`
	Clusters   []struct {
		Context       string `json:"context"`
		ViewerContext string `json:"viewerContext"`
		Dir           string `json:"dir"`
	} `json:"clusters"`
}

// startFleet brings up the fleet of o.clusters in dir. On error the
// returned Fleet, if not nil, is to be brought down.
func startFleet(root, dir string, o options) (*Fleet, error) {
	if o.nodes > 0 || o.metrics || o.gpus > 0 {
		return nil, fmt.Errorf("framework: WithClusters cannot be combined with WithNodes, WithMetrics or WithGPUs")
	}
	if os.Getenv("KUBECTL_INFORMER_E2E_CLUSTER") != "" {
		return nil, fmt.Errorf("framework: WithClusters starts its own fleet; unset KUBECTL_INFORMER_E2E_CLUSTER")
	}
	f := &Fleet{Dir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute) // includes a cold build
	defer cancel()
	out, err := hackCommand(ctx, root, "cluster", "fleet", "up", dir, "--clusters", strconv.Itoa(o.clusters), "--owner-pid", strconv.Itoa(os.Getpid()))
	os.Stderr.Write(out)
	if err != nil {
		// up stops what it started when it fails.
		return nil, fmt.Errorf("starting the fleet: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "fleet.json"))
	if err != nil {
		return f, fmt.Errorf("reading the fleet state: %w", err)
	}
	var st fleetState
	if err := json.Unmarshal(data, &st); err != nil {
		return f, fmt.Errorf("parsing %s/fleet.json: %w", dir, err)
	}
	f.Kubeconfig, f.Dead = st.Kubeconfig, st.Dead
	for _, c := range st.Clusters {
		cl, err := loadCluster(root, c.Dir)
		if err != nil {
			return f, err
		}
		f.Contexts = append(f.Contexts, c.Context)
		f.ViewerContexts = append(f.ViewerContexts, c.ViewerContext)
		f.Clusters = append(f.Clusters, cl)
	}
	return f, nil
}

// stop brings the fleet down.
func (f *Fleet) stop(root string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := hackCommand(ctx, root, "cluster", "fleet", "down", f.Dir)
	os.Stderr.Write(out)
	return err
}

// CurrentFleet returns the fleet Main started for this package
// (WithClusters). It skips the test under -short and fails it if Main did
// not start a fleet.
func CurrentFleet(t testing.TB) *Fleet {
	t.Helper()
	s := mustSuite(t)
	if s.fleet == nil {
		t.Fatal("e2e: no fleet; call framework.Main(m, framework.WithClusters(n)) from TestMain")
	}
	return s.fleet
}
