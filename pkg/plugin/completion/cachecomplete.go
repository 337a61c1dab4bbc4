package completion

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
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
	conn, err := id.DialWarm()
	if err != nil || conn == nil {
		return nil
	}
	defer conn.Close()
	q := protocol.Query{Types: typ, QueryFlags: protocol.QueryFlags{Output: "name"}, SyncTimeout: protocol.Duration(CompletionTimeout)}
	if q.AllNamespaces, _ = cmd.Flags().GetBool("all-namespaces"); !q.AllNamespaces {
		if q.Namespace, _, err = configFlags.ToRawKubeConfigLoader().Namespace(); err != nil {
			return nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), CompletionTimeout)
	defer cancel()
	var out bytes.Buffer
	res, err := conn.Collect(ctx, protocol.Request{Query: &q}, CompletionTimeout, &out, io.Discard)
	if err != nil || res.Exit == nil || res.Exit.Code != 0 {
		return nil
	}
	var answer protocol.Answer
	if json.Unmarshal(out.Bytes(), &answer) != nil {
		return nil
	}
	var names []string
	for _, at := range answer.Types {
		// Asked -o name, the cache answers with identities (FormName).
		for _, ao := range at.Objects {
			if ao.Identity != nil && strings.HasPrefix(ao.Name, prefix) {
				names = append(names, ao.Name)
			}
		}
	}
	return names
}
