package client

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func base() *rest.Config {
	return &rest.Config{
		Host:            "https://127.0.0.1:6443",
		TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca"), CertData: []byte("cert"), KeyData: []byte("key")},
	}
}

func mustKey(t *testing.T, c *rest.Config) string {
	t.Helper()
	k, err := Key(c)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyDiffersPerIdentity(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("t1"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(*rest.Config)
	}{
		{"server", func(c *rest.Config) { c.Host = "https://127.0.0.1:6444" }},
		{"CA", func(c *rest.Config) { c.CAData = []byte("other ca") }},
		{"client certificate", func(c *rest.Config) { c.CertData = []byte("other cert") }},
		{"client key", func(c *rest.Config) { c.KeyData = []byte("other key") }},
		{"bearer token", func(c *rest.Config) { c.BearerToken = "t1" }},
		{"token file", func(c *rest.Config) { c.BearerTokenFile = tokenFile }},
		{"basic auth", func(c *rest.Config) { c.Username, c.Password = "u", "p" }},
		{"--as", func(c *rest.Config) { c.Impersonate.UserName = "jane" }},
		{"--as-uid", func(c *rest.Config) { c.Impersonate.UID = "1" }},
		{"--as-group", func(c *rest.Config) { c.Impersonate.Groups = []string{"g"} }},
		{"impersonated extra", func(c *rest.Config) { c.Impersonate.Extra = map[string][]string{"k": {"v"}} }},
		{"exec plugin", func(c *rest.Config) {
			c.ExecProvider = &clientcmdapi.ExecConfig{Command: "aws", Args: []string{"--profile", "a"}}
		}},
		{"auth provider", func(c *rest.Config) { c.AuthProvider = &clientcmdapi.AuthProviderConfig{Name: "oidc"} }},
		{"insecure", func(c *rest.Config) { c.Insecure = true }},
	}
	want := mustKey(t, base())
	if again := mustKey(t, base()); again != want {
		t.Fatalf("Key is not stable: %s, then %s", want, again)
	}
	seen := map[string]string{want: "base"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base()
			tt.change(c)
			got := mustKey(t, c)
			if other, ok := seen[got]; ok {
				t.Errorf("Key(%s) = %s, the same as for %s", tt.name, got, other)
			}
			seen[got] = tt.name
		})
	}
}

func TestKeyReadsCredentialFiles(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	write := func(s string) {
		if err := os.WriteFile(tokenFile, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := base()
	c.BearerTokenFile = tokenFile
	write("first")
	k1 := mustKey(t, c)
	write("second")
	if k2 := mustKey(t, c); k1 == k2 {
		t.Errorf("Key did not change with the token file's contents: %s", k1)
	}
	c.BearerTokenFile = filepath.Join(dir, "missing")
	if _, err := Key(c); err == nil {
		t.Error("Key with a missing token file succeeded, want an error")
	}
}

func TestKeyIgnoresGroupOrder(t *testing.T) {
	a, b := base(), base()
	a.Impersonate.Groups = []string{"x", "y"}
	b.Impersonate.Groups = []string{"y", "x"}
	if mustKey(t, a) != mustKey(t, b) {
		t.Error("Key depends on the order of --as-group flags")
	}
}

func TestKeyEnvironmentAndProxy(t *testing.T) {
	withExec := func() *rest.Config {
		c := base()
		c.ExecProvider = &clientcmdapi.ExecConfig{Command: "aws"}
		return c
	}
	shell := []string{"HOME=/home/jane", "AWS_PROFILE=dev", "PWD=/tmp", "SHLVL=1", "TERM=xterm"}
	mustEnvKey := func(c *rest.Config, environ []string) string {
		t.Helper()
		k, err := key(c, environ)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	execKey := mustEnvKey(withExec(), shell)
	if got := mustEnvKey(withExec(), []string{"TERM=screen-256color", "AWS_PROFILE=dev", "HOME=/home/jane", "PWD=/srv", "SHLVL=3", "TERM_PROGRAM=tmux", "_=/usr/bin/kubectl"}); got != execKey {
		t.Error("with an exec plugin, Key depends on per-shell variables (PWD, SHLVL, TERM*, _) or their order")
	}
	if got := mustEnvKey(withExec(), []string{"HOME=/home/jane", "AWS_PROFILE=prod", "PWD=/tmp", "SHLVL=1", "TERM=xterm"}); got == execKey {
		t.Error("with an exec plugin, Key ignores AWS_PROFILE, which the plugin reads")
	}
	auth := base()
	auth.AuthProvider = &clientcmdapi.AuthProviderConfig{Name: "gcp"}
	if mustEnvKey(auth, []string{"GOOGLE_APPLICATION_CREDENTIALS=/a"}) == mustEnvKey(auth, []string{"GOOGLE_APPLICATION_CREDENTIALS=/b"}) {
		t.Error("with an auth provider, Key ignores the environment")
	}
	if mustEnvKey(base(), []string{"AWS_PROFILE=dev"}) != mustEnvKey(base(), []string{"AWS_PROFILE=prod"}) {
		t.Error("without a plugin, Key depends on the environment")
	}

	// The proxy: the kubeconfig's proxy-url, and the proxy variables.
	proxied := func(raw string) *rest.Config {
		c := base()
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		c.Proxy = http.ProxyURL(u)
		return c
	}
	if mustEnvKey(proxied("http://proxy-a:3128"), nil) == mustEnvKey(proxied("http://proxy-b:3128"), nil) {
		t.Error("Key ignores the proxy URL")
	}
	plain := mustEnvKey(base(), nil)
	for _, kv := range []string{"HTTPS_PROXY=http://p:1", "https_proxy=http://p:1", "NO_PROXY=127.0.0.1"} {
		if mustEnvKey(base(), []string{kv}) == plain {
			t.Errorf("Key ignores %s", kv)
		}
	}
}
