package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden cluster.json")

// goldenState is where the e2e framework's test reads the same file: the
// contract between the cluster.json this program writes and the fields the
// framework decodes (test/e2e/framework.clusterState).
const goldenState = "../../../../test/e2e/framework/testdata/cluster.json"

// TestStateGolden checks that cluster.json keeps the shape the e2e framework
// reads. A change of a JSON name here fails until the golden is rewritten
// (go test ./cmd/cluster -update), and the framework's test then fails until
// its struct follows.
func TestStateGolden(t *testing.T) {
	dir := "/tmp/cluster"
	st := &clusterState{
		Dir:                   dir,
		KubernetesVersion:     kubernetesVersion,
		ServiceClusterIPRange: serviceClusterIPRange,
		CACert:                filepath.Join(dir, "pki", "ca.crt"),
		AdminKubeconfig:       filepath.Join(dir, "admin.kubeconfig"),
		ViewerKubeconfig:      filepath.Join(dir, "viewer.kubeconfig"),
		Etcd:                  etcdState{Binary: "etcd", ClientURL: "http://127.0.0.1:2379", ClientPort: 2379, PeerPort: 2380, PID: 10, Log: filepath.Join(dir, "etcd.log")},
		APIServers: map[string]*apiServerState{primaryName: {
			Name: primaryName, Binary: "kube-apiserver", URL: "https://127.0.0.1:6443", Port: 6443, PID: 11,
			Kubeconfig: filepath.Join(dir, "admin.kubeconfig"), Log: filepath.Join(dir, "kube-apiserver.log"), AuditLog: filepath.Join(dir, "audit.log"),
		}},
		Components: map[string]*componentState{kwokBin: {
			Name: kwokBin, Binary: "kwok", PID: 12, HealthURL: "http://127.0.0.1:10247/healthz",
			Kubeconfig: filepath.Join(dir, "kwok.kubeconfig"), Log: filepath.Join(dir, "kwok.log"),
		}},
		Nodes:     3,
		Metrics:   true,
		GPUs:      2,
		ReaperPID: 13,
	}
	got, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(goldenState, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenState)
	if err != nil {
		t.Fatalf("reading the golden cluster.json: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("cluster.json =\n%s\nwant (%s)\n%s\nrun go test ./cmd/cluster -update, then make test/e2e/framework's TestClusterStateGolden pass", got, goldenState, want)
	}
}
