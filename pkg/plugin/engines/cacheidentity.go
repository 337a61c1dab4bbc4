package engines

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
)

// CacheIdentity is the warm cache a command's kubeconfig flags lead to.
type CacheIdentity struct {
	Key    string
	Server string
	Dir    string
	Socket string
}

// ResolveCacheIdentity computes, from the kubeconfig flags alone (no
// request), the identity key of the command's API server and credentials,
// and the socket of its cache.
func ResolveCacheIdentity(configFlags *genericclioptions.ConfigFlags) (CacheIdentity, error) {
	restConfig, err := configFlags.ToRESTConfig()
	if err != nil {
		return CacheIdentity{}, err
	}
	key, err := client.Key(restConfig)
	if err != nil {
		return CacheIdentity{}, fmt.Errorf("computing the cache identity: %w", err)
	}
	dir, err := client.Dir()
	if err != nil {
		return CacheIdentity{}, err
	}
	return CacheIdentity{Key: key, Server: restConfig.Host, Dir: dir, Socket: client.SocketPath(dir, key)}, nil
}

// UserName names the identity for messages and cache status: the
// kubeconfig user of the current (or --context) context, "as" the
// impersonated user if any. It does not ask the server (kubectl auth whoami
// would create a SelfSubjectReview, and the plugin never writes).
func UserName(configFlags *genericclioptions.ConfigFlags) (user, context string) {
	raw, err := configFlags.ToRawKubeConfigLoader().RawConfig()
	if err == nil {
		context = raw.CurrentContext
		if configFlags.Context != nil && *configFlags.Context != "" {
			context = *configFlags.Context
		}
		if c, ok := raw.Contexts[context]; ok {
			user = c.AuthInfo
		}
	}
	if configFlags.AuthInfoName != nil && *configFlags.AuthInfoName != "" {
		user = *configFlags.AuthInfoName
	}
	if configFlags.Impersonate != nil && *configFlags.Impersonate != "" {
		user += " as " + *configFlags.Impersonate
	}
	if user == "" {
		user = "(token or certificate flags)"
	}
	return user, context
}

// KubeconfigArgs returns the kubeconfig flags the user set on cmd
// (--kubeconfig, --context, --token, --as, ...), as --name=value
// arguments, except --namespace: what a cache process needs to take the
// same identity. They hold credentials: pass them on stdin, never in argv.
func KubeconfigArgs(cmd *cobra.Command) []string {
	var args []string
	cmd.Root().PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Changed || f.Name == "namespace" || f.Name == "v" {
			return
		}
		args = append(args, flagArgs(f)...)
	})
	return args
}

// flagArgs returns f's value as --name=value arguments, one per element of
// a slice or array flag.
func flagArgs(f *pflag.Flag) []string {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		var args []string
		for _, v := range sv.GetSlice() {
			args = append(args, "--"+f.Name+"="+v)
		}
		return args
	}
	return []string{"--" + f.Name + "=" + f.Value.String()}
}
