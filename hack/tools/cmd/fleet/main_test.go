package main

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeClusterKubeconfig writes a kubeconfig as hack/cluster up does: one
// cluster, one user, one current context.
func writeClusterKubeconfig(t *testing.T, path, server, user string) {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubectl-informer"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: []byte("ca of " + server)}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: []byte(user + " of " + server)}
	cfg.Contexts[user+"@kubectl-informer"] = &clientcmdapi.Context{Cluster: "kubectl-informer", AuthInfo: user}
	cfg.CurrentContext = user + "@kubectl-informer"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}

func TestWriteKubeconfig(t *testing.T) {
	dir := t.TempDir()
	servers := []string{"https://127.0.0.1:1001", "https://127.0.0.1:1002"}
	for i, server := range servers {
		cdir := clusterDir(dir, i+1)
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeClusterKubeconfig(t, filepath.Join(cdir, "admin.kubeconfig"), server, "admin")
		writeClusterKubeconfig(t, filepath.Join(cdir, "viewer.kubeconfig"), server, "viewer")
	}
	st, err := writeKubeconfig(dir, len(servers))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(st.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range cfg.Contexts {
		names = append(names, name)
	}
	sort.Strings(names)
	if want := []string{"dead", "fleet-1", "fleet-2", "viewer-1", "viewer-2"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("contexts %q, want %q", names, want)
	}
	for i, server := range servers {
		for _, c := range []struct{ context, user string }{{st.Clusters[i].Context, "admin"}, {st.Clusters[i].ViewerContext, "viewer"}} {
			ctx := cfg.Contexts[c.context]
			if got := cfg.Clusters[ctx.Cluster].Server; got != server {
				t.Errorf("context %s: server %s, want %s", c.context, got, server)
			}
			if got, want := string(cfg.AuthInfos[ctx.AuthInfo].ClientCertificateData), c.user+" of "+server; got != want {
				t.Errorf("context %s: credentials %q, want %q", c.context, got, want)
			}
		}
	}
	if got := cfg.Clusters[cfg.Contexts[DeadContext].Cluster].Server; got != DeadServer {
		t.Errorf("dead context's server %s, want %s", got, DeadServer)
	}
}
