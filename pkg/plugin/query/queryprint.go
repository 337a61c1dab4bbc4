package query

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

// This file holds how a query prints its answer: the print config that
// QueryOptions.Complete builds from the flags, which makes each target's
// rows, and answerPrinter prints as one.

// queryPrintConfig is everything the query printers need, built by
// QueryOptions.Complete from the flags. Run binds its relationship indexes
// to their caches (bind) and does not change it otherwise.
type queryPrintConfig struct {
	out          printing.Output
	noHeaders    bool
	showKind     bool
	showLabels   bool
	labelColumns []string // -L, in order
	// namespaces are the queried namespaces, none for all: a table has a
	// NAMESPACE column unless there is one, and "No resources found" names
	// them.
	namespaces []string
	// indexes are every index the query reads (--index, then --group-by),
	// each once: a table prints their values in its last columns.
	indexes []index.Definition
	// sortBy is --sort-by. For objects, sortKey reads it from each object,
	// from the first value of the --indexer index sortIndex when it names
	// one; for a grouped table, it names a column.
	sortBy    string
	sortKey   *columns.SortKey
	sortIndex *index.Definition
	// groupBy are the --group-by indexes, in order, and measures the --sum
	// measures: with either, the answer is a grouped table.
	groupBy  []index.Definition
	measures []aggregate.Measure
	top      int // --top: 0 prints every row
	// showEvents is --show-events: a table ends with the latest Event
	// about each object, read from events, which Run sets (eventHeaders).
	showEvents bool
	events     index.KubeEvents
	// ages is the instant a table's ages count from, and source reads
	// the definitions of custom resources, for their printer columns: the
	// target's (target). Ages are the current time unless it reads a dump
	// or a recording.
	ages   engines.Ages
	source engine.Source
}

// completePrint builds the print config from the flags, the indexes
// Complete resolved, and the parsed --group-by and --sum; each target sets
// its namespaces (target).
func (o *QueryOptions) completePrint(groupBy []index.Definition, measures []aggregate.Measure) (queryPrintConfig, error) {
	out, err := printing.ParseOutput(o.Output)
	if err != nil {
		return queryPrintConfig{}, err
	}
	cfg := queryPrintConfig{
		out:          out,
		noHeaders:    o.NoHeaders,
		showKind:     o.ShowKind,
		showLabels:   o.ShowLabels,
		labelColumns: o.LabelColumns,
		indexes:      o.indexDefs,
		sortBy:       o.SortBy,
		groupBy:      groupBy,
		measures:     measures,
		top:          o.Top,
		showEvents:   o.ShowEvents,
	}
	if cfg.sortBy != "" && !cfg.grouped() {
		if cfg.sortIndex, cfg.sortKey, err = parseSortBy(o.IndexSet, cfg.sortBy); err != nil {
			return queryPrintConfig{}, err
		}
	}
	return cfg, nil
}

// printsAges reports whether the answer prints relative times: kubectl's
// table of objects, -o wide too (its AGE, LAST SEEN, --show-events' EVENT
// AGE).
func (c queryPrintConfig) printsAges() bool {
	return !c.grouped() && (c.out.Format == "" || c.out.Format == "wide")
}

// grouped reports whether the answer is a grouped table (--group-by or
// --sum) instead of objects.
func (c queryPrintConfig) grouped() bool { return len(c.groupBy) > 0 || len(c.measures) > 0 }

// namesOnly reports whether the answer prints each object's kind and name
// and nothing else of it: -o name, not sorted by a field.
func (c queryPrintConfig) namesOnly() bool {
	return !c.grouped() && c.out.Format == "name" && c.sortBy == ""
}

// bind returns c with its index definitions (the --sort-by index's too)
// replaced by those of bound of the same name: relationship indexes
// (owner-root, node.label:KEY, …) are bound to their related caches only
// after sync, and the values of a warm cache's answer to its objects. c is
// not changed.
func (c queryPrintConfig) bind(bound []index.Definition) queryPrintConfig {
	c.indexes = rebind(c.indexes, bound)
	c.groupBy = rebind(c.groupBy, bound)
	if c.sortIndex != nil {
		c.sortIndex = &rebind([]index.Definition{*c.sortIndex}, bound)[0]
	}
	return c
}

// rebind returns a copy of defs where each definition is replaced by the one
// of bound of the same name, if any.
func rebind(defs, bound []index.Definition) []index.Definition {
	out := slices.Clone(defs)
	for i := range out {
		for _, def := range bound {
			if def.Name == out[i].Name {
				out[i] = def
			}
		}
	}
	return out
}

// printNotFound says on errOut that nothing matched, as kubectl says it
// on stderr.
func (c queryPrintConfig) printNotFound(errOut io.Writer) {
	switch len(c.namespaces) {
	case 0:
		fmt.Fprintln(errOut, "No resources found")
	case 1:
		fmt.Fprintf(errOut, "No resources found in %s namespace.\n", c.namespaces[0])
	default:
		fmt.Fprintf(errOut, "No resources found in %s namespaces.\n", strings.Join(c.namespaces, ", "))
	}
}

// sortIndexField is the field that holds an object's sort value when
// --sort-by names an index.
const sortIndexField = "value"

// parseSortBy reads --sort-by: the name of an --indexer index of set, whose
// first value per object is then sorted by the rules of a JSONPath's value
// (so "10" after "9", quantities by quantity), or else a JSONPath.
func parseSortBy(set *index.Set, sortBy string) (*index.Definition, *columns.SortKey, error) {
	for _, def := range set.Custom() {
		if def.Name != sortBy {
			continue
		}
		key, err := columns.ParseSortKey("{." + sortIndexField + "}")
		if err != nil {
			return nil, nil, err
		}
		return &def, key, nil
	}
	key, err := columns.ParseSortKey(sortBy)
	return nil, key, err
}

// customColumnCells is obj's row of the -o custom-columns columns cols:
// each column's values joined, <none> where it has none.
func customColumnCells(cols []printing.CustomColumn, obj interface{}) ([]string, error) {
	m, err := object.Content(obj)
	if err != nil {
		return nil, err
	}
	row := make([]string, len(cols))
	for i, c := range cols {
		results, err := c.Path.FindResults(m)
		if err != nil {
			return nil, fmt.Errorf("-o custom-columns: column %s: %w", c.Header, err)
		}
		var values []string
		for _, set := range results {
			for _, v := range set {
				values = append(values, fmt.Sprint(v.Interface()))
			}
		}
		row[i] = printing.JoinOrNone(values)
	}
	return row, nil
}
