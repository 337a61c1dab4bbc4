package cacheclient

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"

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
func Key(config *rest.Config) (string, error) {
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
		Proxy         bool          `json:"proxy,omitempty"`
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
		Proxy: config.Proxy != nil,
	}
	var err error
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
