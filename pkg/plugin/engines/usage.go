package engines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
)

// ReadUsage reads the metrics API of the target o is connected to once, for
// the pods of its one namespace (or of all) if pods, and the nodes if nodes
// (a user may read the one and not the other), and says on errOut which
// sample it read (usage.Snapshot.Describe). Inside a warm cache it takes
// the latest sample the cache keeps (server.Samples) instead, said the same
// way. When the API cannot be read it writes kubectl top's message (and
// why, when it is another error) and returns nil: the caller prints its
// answer without usage. Objects read from files (--from) have no metrics
// API.
func (o *EngineOptions) ReadUsage(ctx context.Context, errOut io.Writer, pods, nodes bool) *usage.Snapshot {
	config := usage.Config{Pods: pods, Nodes: nodes, Namespace: o.usageNamespace()}
	var s *usage.Snapshot
	var err error
	switch e := o.Engines.(type) {
	case DirectEngines:
		var client usage.Client
		if client, err = o.usageClient(); err == nil {
			s, err = usage.Fetch(ctx, client, config)
		}
	case WarmEngines:
		if e.Env.Usage == nil {
			err = errors.New("this warm source keeps no samples")
			break
		}
		s, err = e.Env.Usage.Latest(ctx, config)
		if err == nil && s == nil {
			err = errors.New("the warm cache has read no sample yet")
		}
	default:
		fmt.Fprintf(errOut, "warning: %v: usage is read from a live cluster, not from files; the usage columns are empty\n", usage.ErrMetricsAPINotAvailable)
		return nil
	}
	if err != nil {
		if errors.Is(err, usage.ErrMetricsAPINotAvailable) {
			fmt.Fprintf(errOut, "warning: %v; the usage columns are empty\n", err)
		} else {
			fmt.Fprintf(errOut, "warning: %v: %v; the usage columns are empty\n", usage.ErrMetricsAPINotAvailable, err)
		}
		return nil
	}
	fmt.Fprintln(errOut, s.Describe(time.Now()))
	return s
}

// usageClient is the metrics API client of the target o is connected to.
func (o *EngineOptions) usageClient() (usage.Client, error) {
	config, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return usage.Client{}, err
	}
	return usage.NewClient(config)
}

// RefuseWatchedUsage refuses usage where a watching command does not
// re-read it: an expression of guards (nil ones skipped) that refers to
// usage.
func RefuseWatchedUsage(guards ...*expr.Guard) error {
	for _, g := range guards {
		if g != nil && g.Program().ReadsUsage() {
			return fmt.Errorf("%s: a watch does not re-read usage; use query without -w, or test other fields", g.Program().Flag())
		}
	}
	return nil
}

// UsagePoller returns a usage.Poller of the target o is connected to: its
// pods (of its one namespace, or of all) if pods, and its nodes if nodes.
// Objects read from files have no metrics API.
func (o *EngineOptions) UsagePoller(pods, nodes bool) (*usage.Poller, error) {
	if _, live := o.Engines.(DirectEngines); !live {
		return nil, fmt.Errorf("%w: usage is read from a live cluster, not from files", usage.ErrMetricsAPINotAvailable)
	}
	client, err := o.usageClient()
	if err != nil {
		return nil, err
	}
	return usage.NewPoller(client, usage.Config{Pods: pods, Nodes: nodes, Namespace: o.usageNamespace()})
}

// UsageOf reports whether types hold pods and nodes, the two kinds the
// metrics API measures.
func UsageOf(mappings []*meta.RESTMapping) (pods, nodes bool) {
	for _, m := range mappings {
		if gr := m.Resource.GroupResource(); gr.Group == "" {
			pods = pods || gr.Resource == "pods"
			nodes = nodes || gr.Resource == "nodes"
		}
	}
	return pods, nodes
}

// usageNamespace is the namespace whose pods' usage the target reads: its
// one namespace, or "" for all.
func (o *EngineOptions) usageNamespace() string {
	if len(o.Namespaces) == 1 {
		return o.Namespaces[0]
	}
	return ""
}
