package security

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestExecCredentialPlugin authenticates through a client-go exec
// credential plugin, as cloud kubeconfigs do (gke-gcloud-auth-plugin,
// kubelogin, aws eks get-token): a script that prints an ExecCredential
// with the admin's client certificate and key. The plugin must run it,
// use what it returns, and not print the key even at -v=10.
func TestExecCredentialPlugin(t *testing.T) {
	c := framework.Current(t)
	cfg, err := clientcmd.LoadFromFile(c.AdminKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	user := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
	if user == nil || len(user.ClientKeyData) == 0 {
		t.Fatal("the admin kubeconfig has no embedded client key")
	}
	credential, err := json.Marshal(map[string]any{
		"apiVersion": "client.authentication.k8s.io/v1",
		"kind":       "ExecCredential",
		"status": map[string]string{
			"clientCertificateData": string(user.ClientCertificateData),
			"clientKeyData":         string(user.ClientKeyData),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "credential-plugin")
	body := "#!/bin/sh\ntouch '" + marker + "'\ncat <<'EOF'\n" + string(credential) + "\nEOF\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}

	key := string(user.ClientKeyData)
	user.ClientCertificateData, user.ClientKeyData = nil, nil
	user.Exec = &clientcmdapi.ExecConfig{
		APIVersion:      "client.authentication.k8s.io/v1",
		Command:         script,
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}
	kubeconfig := filepath.Join(dir, "exec.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}

	res := informer(t, kubeconfig, "query", "pods", "-n", "team-a", "-v=10")
	expectSuccess(t, "query through an exec credential plugin", res)
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the credential plugin did not run: %v", err)
	}
	if !strings.Contains(res.Stderr, "curl -v -XGET") {
		t.Errorf("-v=10 logged no requests; the check below would be vacuous:\n%s", res.Stderr)
	}
	for _, line := range strings.Split(key, "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") && strings.Contains(res.Stdout+res.Stderr, line) {
			t.Errorf("-v=10 output contains the client key the credential plugin returned (%.12s…)", line)
		}
	}
	if strings.Contains(res.Stdout+res.Stderr, "PRIVATE KEY") {
		t.Error("-v=10 output contains a PEM private key header")
	}
	expectSuccess(t, "watch through an exec credential plugin", informer(t, kubeconfig, "watch", "pods", "-n", "team-a", "--timeout", "1s"))
}
