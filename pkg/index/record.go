package index

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Record is an object reduced to what a one-shot command reads of it: its
// key (kind, namespace, name, uid, resourceVersion) and, computed once from
// the whole object as it entered the cache, the values of the command's
// indexes and its measures. A RecordPlan builds them; a cache of Records
// holds a few hundred bytes per object where a cache of the objects holds
// kilobytes.
//
// Its metadata holds nothing else: no labels, annotations or owners. Readers
// that want an index's values of a Record ask [Values] (or the
// Definition's Func a RecordPlan returns), never an index function of their
// own; measures are read by their name ([Record.Measures]). A Record is a
// runtime.Object so that client-go's informers, stores and the -o name
// printer take it as they take the object.
//
// A Record shares its strings and value slices with the object it was built
// from and with its copies: never mutate one.
type Record struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	plan *RecordPlan
	// values and errs are, per index of plan in order, what its Func
	// returned for the whole object; errs is nil when none failed.
	values [][]string
	errs   []error
	// measures are plan's measures of the whole object, nil with
	// measureErr when measuring it failed.
	measures   []resource.Quantity
	measureErr error
	// row and rowErr are what plan's row returned for the whole object.
	row    []string
	rowErr error
}

// DeepCopyObject returns a copy of r; it shares the values and strings that
// no one mutates.
func (r *Record) DeepCopyObject() runtime.Object {
	out := *r
	r.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// IndexValues returns what the index named name returned for the object r
// was built from, and whether r holds that index.
func (r *Record) IndexValues(name string) (values []string, ok bool, err error) {
	for i, def := range r.plan.defs {
		if def.Name == name {
			if r.errs != nil {
				err = r.errs[i]
			}
			return r.values[i], true, err
		}
	}
	return nil, false, nil
}

// Measures returns, for each of names, the measure of that name of the
// object r was built from, as copies; ok is false when r does not hold every
// one of them. err is the error measuring the object returned.
func (r *Record) Measures(names []string) (values []resource.Quantity, ok bool, err error) {
	if r.measureErr != nil {
		return nil, r.holdsMeasures(names), r.measureErr
	}
	values = make([]resource.Quantity, len(names))
	for i, name := range names {
		j := r.measureIndex(name)
		if j < 0 {
			return nil, false, nil
		}
		values[i] = r.measures[j].DeepCopy()
	}
	return values, true, nil
}

// Row returns the cells the plan's row function computed from the object r
// was built from, when it entered the cache, and whether r holds a row. The
// cells are shared: copy them before changing one.
func (r *Record) Row() (cells []string, ok bool, err error) {
	if r.plan.row == nil {
		return nil, false, nil
	}
	return r.row, true, r.rowErr
}

func (r *Record) holdsMeasures(names []string) bool {
	for _, name := range names {
		if r.measureIndex(name) < 0 {
			return false
		}
	}
	return true
}

func (r *Record) measureIndex(name string) int {
	for i, have := range r.plan.measureNames {
		if have == name {
			return i
		}
	}
	return -1
}

// RecordPlan says what the Records of one command keep: the values of its
// indexes, its measures and, for a table, each object's row. It is immutable and safe for concurrent use.
type RecordPlan struct {
	defs         []Definition
	measureNames []string
	measure      func(obj interface{}) ([]resource.Quantity, error)
	row          func(obj runtime.Object) ([]string, error)
}

// NewRecordPlan returns the plan of Records that keep the values of defs
// (index definitions that read only the object they index: no Relation) and
// the measures named measureNames, which measure computes, in that order,
// from a whole object (nil when there are none).
func NewRecordPlan(defs []Definition, measureNames []string, measure func(obj interface{}) ([]resource.Quantity, error)) *RecordPlan {
	return &RecordPlan{defs: defs, measureNames: measureNames, measure: measure}
}

// WithRow returns a plan that keeps what p keeps and, per object, what row
// returns for the whole object as it enters the cache (a table's cells,
// read back by [Record.Row]). row is called from several goroutines.
func (p *RecordPlan) WithRow(row func(obj runtime.Object) ([]string, error)) *RecordPlan {
	out := *p
	out.row = row
	return &out
}

// Transform is a client-go TransformFunc: it replaces an object by its
// Record. An object without metadata, and a Record, pass unchanged (client-go
// may hand a transform what it has already transformed). It leaves obj
// alone.
func (p *RecordPlan) Transform(obj interface{}) (interface{}, error) {
	if _, ok := obj.(*Record); ok {
		return obj, nil
	}
	ro, ok := obj.(runtime.Object)
	if !ok {
		return obj, nil
	}
	m, err := meta.Accessor(ro)
	if err != nil {
		return obj, nil
	}
	r := &Record{
		ObjectMeta: metav1.ObjectMeta{
			Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID(), ResourceVersion: m.GetResourceVersion(),
		},
		plan:   p,
		values: make([][]string, len(p.defs)),
	}
	r.SetGroupVersionKind(ro.GetObjectKind().GroupVersionKind())
	for i, def := range p.defs {
		values, err := def.Func(obj)
		if err != nil {
			if r.errs == nil {
				r.errs = make([]error, len(p.defs))
			}
			r.errs[i] = err
		}
		r.values[i] = values
	}
	if p.measure != nil && len(p.measureNames) > 0 {
		r.measures, r.measureErr = p.measure(obj)
	}
	if p.row != nil {
		r.row, r.rowErr = p.row(ro)
	}
	return r, nil
}

// Definitions returns the plan's index definitions with each Func reading a
// Record's kept values, and any other object as before: what to register on
// the informers whose objects Transform reduces.
func (p *RecordPlan) Definitions() []Definition {
	out := make([]Definition, len(p.defs))
	for i, def := range p.defs {
		name, whole := def.Name, def.Func
		def.Func = func(obj interface{}) ([]string, error) {
			if r, ok := Unwrap(obj).(*Record); ok {
				if values, ok, err := r.IndexValues(name); ok {
					return values, err
				}
			}
			return whole(obj)
		}
		out[i] = def
	}
	return out
}
