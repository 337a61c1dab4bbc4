package targets

import (
	"reflect"
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
