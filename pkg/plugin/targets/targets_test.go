package targets

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

func TestIdentityFlagsAndForContext(t *testing.T) {
	cf := genericclioptions.NewConfigFlags(true)
	if got := IdentityFlags(cf); len(got) != 0 {
		t.Errorf("IdentityFlags of defaults = %q, want none", got)
	}
	server, token, ns, as := "https://x", "t", "shop", "jane"
	cf.APIServer, cf.BearerToken, cf.Namespace, cf.Impersonate = &server, &token, &ns, &as
	if got, want := IdentityFlags(cf), []string{"--server", "--token"}; !reflect.DeepEqual(got, want) {
		t.Errorf("IdentityFlags = %q, want %q", got, want)
	}
	c := ForContext(cf, "prod")
	if *c.Context != "prod" || *c.Namespace != "shop" || *c.Impersonate != "jane" {
		t.Errorf("ForContext: context %q, namespace %q, as %q; want prod, shop, jane", *c.Context, *c.Namespace, *c.Impersonate)
	}
	if c.APIServer != nil && *c.APIServer != "" {
		t.Errorf("ForContext kept --server %q; each context has its own", *c.APIServer)
	}
}

func TestNew(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: secret}}]
contexts:
- {name: prod-eu, context: {cluster: c, user: u}}
- {name: prod-us, context: {cluster: c, user: u}}
- {name: dev, context: {cluster: c, user: u}}
current-context: dev
`), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := func(context string) *genericclioptions.ConfigFlags {
		cf := genericclioptions.NewConfigFlags(true)
		cf.KubeConfig, cf.Context = &kubeconfig, &context
		return cf
	}
	for _, tc := range []struct {
		name         string
		context      string
		all, several bool
		want         []string
		missing      []string
		wantSeveral  bool
	}{
		{name: "no context: the current one, alone", want: []string{"dev"}},
		{name: "a plain name: a set of one", context: "prod-eu", want: []string{"prod-eu"}},
		{name: "a pattern matching one: several", context: "prod-e*", want: []string{"prod-eu"}, wantSeveral: true},
		{name: "names and patterns", context: "dev,prod-*,gone", want: []string{"dev", "prod-eu", "prod-us"}, missing: []string{"gone"}, wantSeveral: true},
		{name: "all", all: true, want: []string{"dev", "prod-eu", "prod-us"}, wantSeveral: true},
		{name: "the context index makes one context several", context: "dev", several: true, want: []string{"dev"}, wantSeveral: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cf := flags(tc.context)
			s, err := New(cf, tc.all, tc.several)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, target := range s.Targets {
				got = append(got, target.Name)
				if !tc.wantSeveral && target.ConfigFlags != cf {
					t.Errorf("a set of one has ConfigFlags of its own; want the command's (with its identity flags)")
				}
				if tc.wantSeveral && *target.ConfigFlags.Context != target.Name {
					t.Errorf("target %s has --context %q", target.Name, *target.ConfigFlags.Context)
				}
			}
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(s.Missing, tc.missing) || s.Several != tc.wantSeveral {
				t.Errorf("New = %v missing %v several %v, want %v missing %v several %v", got, s.Missing, s.Several, tc.want, tc.missing, tc.wantSeveral)
			}
		})
	}
	server := "https://x"
	cf := flags("prod-*")
	cf.APIServer = &server
	if _, err := New(cf, false, false); err == nil || !strings.Contains(err.Error(), "--server") {
		t.Errorf("a selection with --server: error %v, want one naming --server", err)
	}
}
