package completion

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// completeNamesFromCache returns the names of typ's objects that start with
// prefix, from the running warm cache of this identity (which lists typ on
// first use and keeps it), or nothing when no cache runs: listing a whole
// type of a big cluster for one TAB is what makes completion slow. It runs
// in the namespace of -n or the context (all with -A) and within
// completionTimeout.
func completeNamesFromCache(cmd *cobra.Command, configFlags *genericclioptions.ConfigFlags, typ, prefix string) []string {
	id, err := engines.ResolveCacheIdentity(configFlags)
	if err != nil {
		return nil
	}
	if _, err := os.Lstat(id.Socket); err != nil || client.CheckDir(id.Dir) != nil {
		return nil
	}
	conn, err := client.Dial(id.Socket, engines.DialTimeout)
	if err != nil {
		return nil
	}
	defer conn.Close()
	args := []string{"query", typ, "-o", "name", "--sync-timeout=" + CompletionTimeout.String()}
	if all, _ := cmd.Flags().GetBool("all-namespaces"); all {
		args = append(args, "--all-namespaces")
	} else {
		ns, _, err := configFlags.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return nil
		}
		args = append(args, "--namespace="+ns)
	}
	ctx, cancel := context.WithTimeout(context.Background(), CompletionTimeout)
	defer cancel()
	var out bytes.Buffer
	res, err := conn.Run(ctx, protocol.Request{Args: args}, CompletionTimeout, &out, io.Discard)
	if err != nil || res.Exit == nil || res.Exit.Code != 0 {
		return nil
	}
	var names []string
	for _, line := range strings.Split(out.String(), "\n") {
		_, name, ok := strings.Cut(line, "/")
		if ok && strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	return names
}
