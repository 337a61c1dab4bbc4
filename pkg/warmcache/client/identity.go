package client

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"

	"k8s.io/client-go/rest"
)

// Key returns the identity key of config: a hash of everything that decides
// whom the API server takes the requests for and where they go — the server
// URL and CA, every credential (bearer token or the token file's contents,
// client certificate and key or their files' contents, basic auth, exec and
// auth-provider plugins with their arguments and environment) and the
// impersonation (user, uid, groups, extra). Two configs get the same key
// only if they would authenticate as the same identity against the same
// server, so a cache is never reached with another user's, token's,
// context's or --as's key. Files that cannot be read make Key fail: an
// unreadable credential is no identity to share.
//
// The proxy the requests go through is part of the key: the kubeconfig's
// proxy-url (as config.Proxy answers for the server's URL) and the
// HTTPS_PROXY, HTTP_PROXY and NO_PROXY variables (either case). With an exec
// or auth-provider plugin, which client-go runs with the whole process
// environment, every environment variable is part of the key (AWS_PROFILE,
// GOOGLE_APPLICATION_CREDENTIALS, KUBECONFIG, ...) except those of
// shellVariables, which differ between shells of one user and configure no
// plugin. What a plugin keeps elsewhere (its own token cache, a login made
// after the cache started) cannot be seen: such a cache keeps the
// credentials it got until it is restarted.
func Key(config *rest.Config) (string, error) {
	return key(config, os.Environ())
}

// shellVariables are environment variables left out of the identity of an
// exec or auth-provider plugin: set per shell, window or terminal.
var shellVariables = []string{
	"_", "PWD", "OLDPWD", "SHLVL", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND",
	"COLUMNS", "LINES", "TERM", "TERM_*", "COLORTERM", "WINDOWID", "TMUX_PANE", "SSH_TTY",
}

// proxyVariables are the environment variables Go's default proxy reads.
var proxyVariables = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"}

// pluginEnvironment returns environ without shellVariables, sorted.
func pluginEnvironment(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(shellVariables, func(pattern string) bool {
			prefix, wildcard := strings.CutSuffix(pattern, "*")
			return name == pattern || wildcard && strings.HasPrefix(name, prefix)
		}) {
			out = append(out, kv)
		}
	}
	sort.Strings(out)
	return out
}

// proxyFor returns the proxy config.Proxy chooses for the server's URL, ""
// for none or without config.Proxy.
func proxyFor(config *rest.Config) (string, error) {
	if config.Proxy == nil {
		return "", nil
	}
	u, err := url.Parse(config.Host)
	if err != nil {
		return "", fmt.Errorf("parsing the server URL: %w", err)
	}
	proxy, err := config.Proxy(&http.Request{URL: u})
	if err != nil || proxy == nil {
		return "", err
	}
	return proxy.String(), nil
}

func key(config *rest.Config, environ []string) (string, error) {
	type impersonation struct {
		User   string              `json:"user,omitempty"`
		UID    string              `json:"uid,omitempty"`
		Groups []string            `json:"groups,omitempty"`
		Extra  map[string][]string `json:"extra,omitempty"`
	}
	type identity struct {
		Host          string        `json:"host"`
		APIPath       string        `json:"apiPath,omitempty"`
		ServerName    string        `json:"serverName,omitempty"`
		Insecure      bool          `json:"insecure,omitempty"`
		CA            []byte        `json:"ca,omitempty"`
		Cert          []byte        `json:"cert,omitempty"`
		Key           []byte        `json:"key,omitempty"`
		Token         string        `json:"token,omitempty"`
		TokenFile     []byte        `json:"tokenFile,omitempty"`
		Username      string        `json:"username,omitempty"`
		Password      string        `json:"password,omitempty"`
		Exec          any           `json:"exec,omitempty"`
		AuthProvider  any           `json:"authProvider,omitempty"`
		Impersonation impersonation `json:"impersonation"`
		Proxy         string        `json:"proxy,omitempty"`
		ProxyEnv      []string      `json:"proxyEnv,omitempty"`
		PluginEnv     []string      `json:"pluginEnv,omitempty"`
	}
	id := identity{
		Host:       config.Host,
		APIPath:    config.APIPath,
		ServerName: config.ServerName,
		Insecure:   config.Insecure,
		Token:      config.BearerToken,
		Username:   config.Username,
		Password:   config.Password,
		Impersonation: impersonation{
			User:   config.Impersonate.UserName,
			UID:    config.Impersonate.UID,
			Groups: sortedCopy(config.Impersonate.Groups),
			Extra:  config.Impersonate.Extra,
		},
	}
	var err error
	if id.Proxy, err = proxyFor(config); err != nil {
		return "", err
	}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(proxyVariables, name) {
			id.ProxyEnv = append(id.ProxyEnv, kv)
		}
	}
	sort.Strings(id.ProxyEnv)
	if id.CA, err = dataOrFile(config.CAData, config.CAFile); err != nil {
		return "", err
	}
	if id.Cert, err = dataOrFile(config.CertData, config.CertFile); err != nil {
		return "", err
	}
	if id.Key, err = dataOrFile(config.KeyData, config.KeyFile); err != nil {
		return "", err
	}
	if config.BearerTokenFile != "" {
		if id.TokenFile, err = os.ReadFile(config.BearerTokenFile); err != nil {
			return "", fmt.Errorf("reading the token file: %w", err)
		}
	}
	if config.ExecProvider != nil {
		id.Exec = config.ExecProvider
	}
	if config.AuthProvider != nil {
		id.AuthProvider = config.AuthProvider
	}
	if config.ExecProvider != nil || config.AuthProvider != nil {
		id.PluginEnv = pluginEnvironment(environ)
	}
	b, err := json.Marshal(id)
	if err != nil {
		return "", fmt.Errorf("encoding the identity: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12]), nil
}

func dataOrFile(data []byte, file string) ([]byte, error) {
	if len(data) > 0 || file == "" {
		return data, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return b, nil
}

func sortedCopy(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}
