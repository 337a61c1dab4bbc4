package watch

import (
	"context"
	"fmt"
	"slices"

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
// synced caches until ctx ends (Ctrl-C, --timeout) or the engine fails:
// the objects named and in the query of --where and --filter count.
func (w *targetWatch) runGroups(ctx context.Context, eng engines.RunningEngine, queue *engine.Queue, names map[string]map[string]bool) error {
	feed := w.groups.Feed(w.name, w.groupDefs, func(t *engine.Type, obj interface{}) (bool, error) {
		return named(names, t, obj) && w.print.Matches(obj), nil
	})
	if err := feed.Seed(ctx, &w.eo, eng.Types(), w.errOut); err != nil {
		return err
	}
	engines.PrintSynced(w.errOut, w.eo.Engines, eng.Types())
	ctx, cancel := engines.RunContext(ctx, eng, w.o.Timeout)
	defer cancel()
	err := feed.Follow(ctx, &w.eo, eng.Types(), queue, w.warnings)
	if failed := eng.Err(); failed != nil {
		return failed
	}
	return QuietPipe(err)
}
