package engines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
)

// ReadUsage reads the metrics API of the target o is connected to once, for
// the pods of its one namespace (or of all) and the nodes, and says on errOut which
// sample it read (usage.Snapshot.Describe). When the API cannot be read it
// writes kubectl top's message (and why, when it is another error) and
// returns nil: the caller prints its answer without usage. Objects read from
// files (--from) have no metrics API.
func (o *EngineOptions) ReadUsage(ctx context.Context, errOut io.Writer) *usage.Snapshot {
	if _, live := o.Engines.(DirectEngines); !live {
		fmt.Fprintf(errOut, "warning: %v: usage is read from a live cluster, not from files; the usage columns are empty\n", usage.ErrMetricsAPINotAvailable)
		return nil
	}
	s, err := fetchUsage(ctx, o.ConfigFlags, o.usageNamespace())
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

// fetchUsage is one usage.Fetch of pods (in namespace) and nodes.
func fetchUsage(ctx context.Context, configFlags *genericclioptions.ConfigFlags, namespace string) (*usage.Snapshot, error) {
	config, err := configFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	client, err := usage.NewClient(config)
	if err != nil {
		return nil, err
	}
	return usage.Fetch(ctx, client, usage.Config{Pods: true, Nodes: true, Namespace: namespace})
}

// RefuseWatchedUsage refuses usage where a watching command does not
// re-read it: a usage measure among measures, or an expression of guards
// (nil ones skipped) that refers to usage.
func RefuseWatchedUsage(measures []aggregate.Measure, guards ...*expr.Guard) error {
	for _, m := range measures {
		if m.IsUsage() {
			return fmt.Errorf("--sum %s: usage is read once per answer, not watched; drop -w, or watch requests", m.Name)
		}
	}
	for _, g := range guards {
		if g != nil && g.Program().ReadsUsage() {
			return fmt.Errorf("%s: usage is read once per answer, not watched; drop -w, or filter on other fields", g.Program().Flag())
		}
	}
	return nil
}

// UsagePoller returns a usage.Poller of the target o is connected to: its
// pods (of its one namespace, or of all) and its nodes. Objects read from
// files have no metrics API.
func (o *EngineOptions) UsagePoller() (*usage.Poller, error) {
	if _, live := o.Engines.(DirectEngines); !live {
		return nil, fmt.Errorf("%w: usage is read from a live cluster, not from files", usage.ErrMetricsAPINotAvailable)
	}
	config, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	client, err := usage.NewClient(config)
	if err != nil {
		return nil, err
	}
	return usage.NewPoller(client, usage.Config{Pods: true, Nodes: true, Namespace: o.usageNamespace()})
}

// usageNamespace is the namespace whose pods' usage the target reads: its
// one namespace, or "" for all.
func (o *EngineOptions) usageNamespace() string {
	if len(o.Namespaces) == 1 {
		return o.Namespaces[0]
	}
	return ""
}
