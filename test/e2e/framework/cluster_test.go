package framework

import (
	"encoding/json"
	"os"
	"testing"
)

// TestClusterStateGolden decodes the cluster.json that hack/tools/cmd/cluster's
// TestStateGolden keeps in testdata, so that the two declarations of the
// file's shape cannot drift apart: every field the framework reads must be
// there under the name the framework expects.
func TestClusterStateGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/cluster.json")
	if err != nil {
		t.Fatal(err)
	}
	var st clusterState
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("decoding testdata/cluster.json: %v", err)
	}
	primary, ok := st.APIServers[PrimaryAPIServer]
	checks := map[string]bool{
		"adminKubeconfig":            st.AdminKubeconfig != "",
		"viewerKubeconfig":           st.ViewerKubeconfig != "",
		"etcd.clientURL":             st.Etcd.ClientURL != "",
		"apiservers[kube-apiserver]": ok,
		"apiservers[].url":           primary.URL != "",
		"apiservers[].kubeconfig":    primary.Kubeconfig != "",
		"apiservers[].auditLog":      primary.AuditLog != "",
		"nodes (simulated by kwok)":  st.Nodes > 0,
		"metrics (metrics-server)":   st.Metrics,
		"gpus (per GPU node)":        st.GPUs > 0,
	}
	for field, found := range checks {
		if !found {
			t.Errorf("the framework read no %s from the cluster.json hack/cluster writes", field)
		}
	}
}
