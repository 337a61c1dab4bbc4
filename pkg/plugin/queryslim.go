package plugin

import (
	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// recordPlan returns the stored form of a one-shot query whose answer reads
// nothing of its objects but their key, its indexes' values and its
// measures: -o name and grouped tables, without --filter, --sort-by over
// objects, --show-events or a relationship index (those read the objects
// themselves, or other caches through them). It returns nil for any other
// query, and for an engine shared with other commands (a warm cache), whose
// objects stay whole.
func (o *QueryOptions) recordPlan() *index.RecordPlan {
	if o.watching() || o.engines.shared() || o.filter != nil || o.ShowEvents {
		return nil
	}
	if !o.grouped() && (o.print.out.format != "name" || o.SortBy != "") {
		return nil
	}
	for _, def := range o.indexDefs {
		if def.Relation != index.NoRelation {
			return nil
		}
	}
	return aggregate.RecordPlan(o.indexDefs, o.print.measures)
}

// recordReads returns what a query with a recordPlan reads of its objects
// besides their metadata (cache.Config.Reads): the fields its indexes and
// measures declare. It returns nil, whole objects, when one of them
// declares none (a JSONPath or CEL index, a custom measure).
func (o *QueryOptions) recordReads() []string {
	paths := []string{}
	for _, def := range o.indexDefs {
		read, ok := index.FieldsRead(def)
		if !ok {
			return nil
		}
		paths = append(paths, read...)
	}
	read, ok := aggregate.FieldsRead(o.print.measures)
	if !ok {
		return nil
	}
	return append(paths, read...)
}
