// Package targets turns the kubeconfig flags into the set of contexts a
// command asks (its targets) and runs a command's work once per target.
//
// One path serves one context and many: no --context, or a plain
// --context NAME, is a set of one target whose ConfigFlags are the
// command's own (with --server, --token and the other identity flags); a
// selection (names joined by commas, shell-style patterns, --all-contexts)
// is a set of targets, each with ConfigFlags of its own context, and is
// marked Several so that answers name the context of each row. This
// package never reads a cluster itself.
package targets

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Target is one kubeconfig context a command asks.
type Target struct {
	// Name is the context's name: the --context value, the selected
	// context, or the kubeconfig's current context ("" when a set of one
	// has none, as with --server and no kubeconfig).
	Name string
	// ConfigFlags build the target's clients.
	ConfigFlags *genericclioptions.ConfigFlags
}

// Set is the targets a command asks, in the order they were named.
type Set struct {
	Targets []Target
	// Missing are plain names of a selection that are not in the
	// kubeconfig: each is a failure of its own, named, while the others
	// are answered.
	Missing []string
	// Several is set when contexts were selected the fleet way (Selected):
	// answers name each row's context, even when one context matched.
	Several bool
}

// Total is how many contexts the set names, missing ones included.
func (s Set) Total() int { return len(s.Targets) + len(s.Missing) }

// Keep drops the targets for which keep is false.
func (s *Set) Keep(keep func(name string) bool) {
	kept := s.Targets[:0]
	for _, t := range s.Targets {
		if keep(t.Name) {
			kept = append(kept, t)
		}
	}
	s.Targets = kept
}

// Selected reports whether cf and all choose contexts the fleet way:
// --all-contexts, or a --context value that IsSelection.
func Selected(cf *genericclioptions.ConfigFlags, all bool) bool {
	return all || IsSelection(ContextFlag(cf))
}

// ContextFlag is the value of --context, "" if not given.
func ContextFlag(cf *genericclioptions.ConfigFlags) string {
	if cf.Context == nil {
		return ""
	}
	return *cf.Context
}

// New returns the targets cf and all name. Without a selection (several
// false) it is a set of one: cf itself, named by --context or the
// kubeconfig's current context. With one (several, or Selected), each
// selected context gets ConfigFlags of its own (ForContext); identity
// flags that would make every context the same are refused, naming them.
func New(cf *genericclioptions.ConfigFlags, all, several bool) (Set, error) {
	if !several && !Selected(cf, all) {
		name := ContextFlag(cf)
		if name == "" {
			if raw, err := cf.ToRawKubeConfigLoader().RawConfig(); err == nil {
				name = raw.CurrentContext
			}
		}
		return Set{Targets: []Target{{Name: name, ConfigFlags: cf}}}, nil
	}
	if set := IdentityFlags(cf); len(set) > 0 {
		return Set{}, fmt.Errorf("%s would make every context the same identity: a command across contexts uses each context's own server and credentials", strings.Join(set, ", "))
	}
	raw, err := cf.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return Set{}, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	available := make([]string, 0, len(raw.Contexts))
	for name := range raw.Contexts {
		available = append(available, name)
	}
	value := ContextFlag(cf)
	if value == "" && !all {
		if value = raw.CurrentContext; value == "" {
			return Set{}, fmt.Errorf("the kubeconfig has no current context: use --context or --all-contexts")
		}
	}
	sel, err := Select(available, value, all)
	if err != nil {
		return Set{}, err
	}
	s := Set{Missing: sel.Missing, Several: true}
	for _, name := range sel.Names {
		s.Targets = append(s.Targets, Target{Name: name, ConfigFlags: ForContext(cf, name)})
	}
	return s, nil
}

// IdentityFlags are the flags of cf, as the user spelled them, that would
// make every context the same identity; a selection refuses them.
func IdentityFlags(cf *genericclioptions.ConfigFlags) []string {
	var set []string
	for _, f := range []struct {
		name  string
		value *string
	}{
		{"--server", cf.APIServer}, {"--cluster", cf.ClusterName}, {"--user", cf.AuthInfoName},
		{"--token", cf.BearerToken}, {"--client-certificate", cf.CertFile}, {"--client-key", cf.KeyFile},
		{"--username", cf.Username}, {"--password", cf.Password}, {"--tls-server-name", cf.TLSServerName},
		{"--certificate-authority", cf.CAFile},
	} {
		if f.value != nil && *f.value != "" {
			set = append(set, f.name)
		}
	}
	return set
}

// ForContext returns ConfigFlags for context name that keep cf's other
// flags (--kubeconfig, -n, --as, --request-timeout, …). An exec credential
// plugin that needs the terminal has its credentials fetched one context at
// a time (SerializeTerminalExec).
func ForContext(cf *genericclioptions.ConfigFlags, name string) *genericclioptions.ConfigFlags {
	c := genericclioptions.NewConfigFlags(true).WithDiscoveryBurst(300).WithDiscoveryQPS(50)
	c.CacheDir, c.KubeConfig = cf.CacheDir, cf.KubeConfig
	c.Namespace, c.Timeout, c.Insecure, c.DisableCompression, c.ProxyURL = cf.Namespace, cf.Timeout, cf.Insecure, cf.DisableCompression, cf.ProxyURL
	c.Impersonate, c.ImpersonateUID, c.ImpersonateGroup, c.ImpersonateUserExtra = cf.Impersonate, cf.ImpersonateUID, cf.ImpersonateGroup, cf.ImpersonateUserExtra
	c.WrapConfigFn = SerializeTerminalExec(cf.WrapConfigFn)
	c.Context = &name
	return c
}

// Names are the names of the targets, in order.
func (s Set) Names() []string {
	names := make([]string, len(s.Targets))
	for i, t := range s.Targets {
		names[i] = t.Name
	}
	return names
}

// Deadline is how long each target may take in all, for a command whose
// discovery and sync each get syncTimeout: no bound for one target (its
// steps bound themselves, as kubectl's do); for one of several, both, and
// slack for lists that end just in time and for the answer.
func (s Set) Deadline(syncTimeout time.Duration) time.Duration {
	if !s.Several {
		return 0
	}
	return 2*syncTimeout + 30*time.Second
}
