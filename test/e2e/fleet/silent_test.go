package fleet

import (
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestFleetSilentContextCannotHang adds a context whose server accepts
// connections and never answers: a query across it and fleet-1 names it on
// stderr once, slow past --sync-timeout, answers for fleet-1, exits 1, and
// ends (well within the command's own time limit).
func TestFleetSilentContextCannotHang(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		held []net.Conn // read nothing, answer nothing
	)
	defer func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
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

	r := framework.Run(t, framework.Cmd{
		Args:       []string{"informer", "query", "pods", "-n", namespace, "--context", f.Contexts[0] + ",silent", "--sync-timeout", "3s", "--no-headers"},
		Kubeconfig: kubeconfig,
		Timeout:    2 * time.Minute,
	})
	if r.TimedOut {
		t.Fatalf("the query did not end: %s", r)
	}
	if r.ExitCode != 1 {
		t.Errorf("exit code %d, want 1: %s", r.ExitCode, r)
	}
	if n := strings.Count(r.Stderr, "error: context silent: "); n != 1 || !strings.Contains(r.Stderr, "timed out") {
		t.Errorf("stderr names the silent context %d times (want once, timed out):\n%s", n, r.Stderr)
	}
	if got, want := rows(r.Stdout), expectedRows(t, f.Contexts[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("rows of %s:\n got %q\nwant %q", f.Contexts[0], got, want)
	}
}
