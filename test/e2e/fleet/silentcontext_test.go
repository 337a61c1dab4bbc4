package fleet

import (
	"net"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// withSilentContext returns a copy of the fleet's kubeconfig with one more
// context, "silent", whose server accepts connections and never answers; the
// server stops when the test ends.
func withSilentContext(t *testing.T) string {
	t.Helper()
	f := framework.CurrentFleet(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		held []net.Conn // read nothing, answer nothing
	)
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()

	cfg, err := clientcmd.LoadFromFile(f.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Clusters["silent"] = &clientcmdapi.Cluster{Server: "https://" + l.Addr().String(), InsecureSkipTLSVerify: true}
	cfg.AuthInfos["silent"] = &clientcmdapi.AuthInfo{Token: "none"}
	cfg.Contexts["silent"] = &clientcmdapi.Context{Cluster: "silent", AuthInfo: "silent"}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}
