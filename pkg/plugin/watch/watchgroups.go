package watch

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
)

// This file holds what watch --group-by … --sum … completes from the
// flags, and the run of one target's part of the live table.

// grouped reports whether the watch keeps a grouped table (--group-by or
// --sum) instead of printing events.
func (o *WatchOptions) grouped() bool {
	return len(o.GroupBy) > 0 || len(o.Sums) > 0
}

// completeGroups looks up the indexes of groupBy (--group-by as the
// targets read it) and parses --sum, and returns indexDefs with the
// --group-by indexes added. It sets what the engine of a grouped watch
// caches: no managedFields (nothing is diffed), and stripped pods when
// every index and measure reads only what aggregate.TransformPod keeps.
func (o *WatchOptions) completeGroups(groupBy []string, indexDefs []index.Definition) ([]index.Definition, error) {
	defs, measures, err := engines.ParseGroups(o.IndexSet, groupBy, o.Sums)
	if err != nil {
		return nil, err
	}
	o.groupDefs, o.measures = defs, measures
	for _, def := range defs {
		if !slices.ContainsFunc(indexDefs, func(d index.Definition) bool { return d.Name == def.Name }) {
			indexDefs = append(indexDefs, def)
		}
	}
	o.Config.ManagedFields = engine.DropManagedFields
	if engines.PodTransformSafe(o.measures, indexDefs, o.Filter != "") {
		o.Config.Transforms = map[schema.GroupResource]toolscache.TransformFunc{{Resource: "pods"}: aggregate.TransformPod}
	}
	return indexDefs, nil
}

// validateGroups refuses, with --group-by or --sum, the flags that shape
// printed events, which a grouped watch does not print.
func (o *WatchOptions) validateGroups() error {
	if !o.grouped() {
		return nil
	}
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"-o/--output", o.Output != "text"}, {"--diff", o.Diff != "compact"}, {"--ignore", len(o.Ignore) > 0},
		{"--only", len(o.Only) > 0}, {"--initial", o.Initial}, {"--until", o.Until != ""}, {"--until-all", o.UntilAll != ""},
		{"--max-events", o.MaxEvents > 0}, {"--show-secret-values", o.ShowSecretValues},
	} {
		if f.set {
			return fmt.Errorf("--group-by and --sum keep a table of groups instead of printing events; they cannot be combined with %s", f.name)
		}
	}
	return nil
}

// runGroups keeps the target's part of the live grouped table of the
// synced caches until ctx ends (Ctrl-C, --timeout) or the engine fails.
func (w *targetWatch) runGroups(ctx context.Context, eng engines.RunningEngine, queue *engine.Queue, names map[string]map[string]bool) error {
	f := w.groups
	f.keys, f.names, f.cfg = w.groupDefs, names, w.print
	readsUsage := aggregate.NeedsUsage(w.o.measures)
	mappings := make([]*meta.RESTMapping, 0, len(eng.Types()))
	for _, t := range eng.Types() {
		mappings = append(mappings, t.Mapping)
	}
	pods, nodes := engines.UsageOf(mappings)
	if err := f.table.expandGlobs(eng.Types()); err != nil {
		return err
	}
	if readsUsage {
		s := w.eo.ReadUsage(ctx, w.errOut, pods, nodes)
		f.table.mu.Lock()
		err := f.bind(s)
		f.table.mu.Unlock()
		if err != nil {
			return err
		}
	}
	if err := f.seed(eng.Types()); err != nil {
		return err
	}
	engines.PrintSynced(w.errOut, w.eo.Engines, eng.Types())
	ctx, cancel := engines.RunContext(ctx, eng, w.o.Timeout)
	defer cancel()
	// The metrics API has no watch: a Poller reads each new sample.
	usageDone := make(chan error, 1)
	usageDone <- nil
	if readsUsage {
		if poller, err := w.eo.UsagePoller(pods, nodes); err == nil {
			<-usageDone
			go func() { usageDone <- f.followUsage(ctx, poller, eng.Types(), w.errOut) }()
		}
	}
	err := f.follow(ctx, queue)
	cancel()
	if usageErr := <-usageDone; err == nil {
		err = usageErr
	}
	if failed := eng.Err(); failed != nil {
		return failed
	}
	return err
}

// groupTitle is "pods by node, label:app; sum of requests.cpu".
func (o *WatchOptions) groupTitle() string {
	title := strings.Join(o.typeArgs, ",")
	if len(o.GroupBy) > 0 {
		title += " by " + strings.Join(o.GroupBy, ", ")
	}
	if len(o.Sums) > 0 {
		title += "; sum of " + strings.Join(o.Sums, ", ")
	}
	return title
}
