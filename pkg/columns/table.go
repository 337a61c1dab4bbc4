package columns

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// FormatName is the [Column.Format] of the column that holds the object's name, as in the
// server's metav1.TableColumnDefinition. kubectl --show-kind writes "kind/" before that cell.
const FormatName = "name"

// Column is one column of a Table.
type Column struct {
	// Header is the column's heading as kubectl prints it: the server's column name in upper
	// case, e.g. "NOMINATED NODE".
	Header string
	// Wide is true for a column kubectl prints only with -o wide (a priority above 0).
	Wide bool
	// Format is the server's format of the column: FormatName for the name column, a CRD column's
	// format for a custom resource's column, empty otherwise.
	Format string
}

// RowFunc returns the cells of obj's row in a Table: one cell per column of the Table, in order,
// wide columns included. Ages are measured from now. It returns an error, and no cells, for an
// object it cannot read: an object of another type, or unstructured content that does not convert
// to its type. It does not modify obj.
type RowFunc func(obj runtime.Object, now time.Time) ([]string, error)

// Table is what kubectl prints for one resource: its columns and how to compute a row.
type Table struct {
	// Columns lists every column, wide ones included, in the order kubectl prints them.
	Columns []Column
	// Row computes one object's row; it is safe for concurrent use.
	Row RowFunc
	// Compare, when set, orders the rows as the API server's table printer does where it sorts
	// the list itself (printers.go prints FlowSchemas by matching precedence, then name): it
	// returns a negative number when a's row comes first. Nil keeps the order of the objects.
	Compare func(a, b runtime.Object) int
}

// Headers returns the headings of the columns kubectl prints: every column when wide is true,
// the columns that are not Wide otherwise. The caller owns the returned slice.
func (t Table) Headers(wide bool) []string {
	headers := make([]string, 0, len(t.Columns))
	for _, c := range t.Columns {
		if wide || !c.Wide {
			headers = append(headers, c.Header)
		}
	}
	return headers
}

// Visible returns the cells of row that kubectl prints: all of them when wide is true, those of
// the columns that are not Wide otherwise. row must be a row of t, one cell per column; cells
// beyond the columns are dropped, as kubectl drops them. The caller owns the returned slice.
func (t Table) Visible(row []string, wide bool) []string {
	cells := make([]string, 0, len(row))
	for i, cell := range row {
		if i >= len(t.Columns) {
			break
		}
		if wide || !t.Columns[i].Wide {
			cells = append(cells, cell)
		}
	}
	return cells
}

// columnsOf builds a Table's columns from the server's column names; names listed in wide are
// wide-only, and the column named "Name" is the name column.
func columnsOf(names []string, wide ...string) []Column {
	cols := make([]Column, len(names))
	for i, name := range names {
		cols[i] = Column{Header: strings.ToUpper(name)}
		if name == "Name" {
			cols[i].Format = FormatName
		}
		for _, w := range wide {
			if w == name {
				cols[i].Wide = true
			}
		}
	}
	return cols
}

// typedRow turns a row function over one typed object into a RowFunc that also accepts the same
// object as *unstructured.Unstructured.
func typedRow[T any, PT interface {
	*T
	runtime.Object
}](row func(obj PT, now time.Time) []string) RowFunc {
	return typedRowErr(func(obj PT, now time.Time) ([]string, error) { return row(obj, now), nil })
}

// typedRowErr is typedRow for a row function that can fail on an object of the right type.
func typedRowErr[T any, PT interface {
	*T
	runtime.Object
}](row func(obj PT, now time.Time) ([]string, error)) RowFunc {
	return func(obj runtime.Object, now time.Time) ([]string, error) {
		switch o := obj.(type) {
		case PT:
			return row(o, now)
		case *unstructured.Unstructured:
			var typed T
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.UnstructuredContent(), &typed); err != nil {
				return nil, fmt.Errorf("converting %s %q to %T: %w", o.GetKind(), o.GetName(), PT(nil), err)
			}
			return row(&typed, now)
		}
		return nil, fmt.Errorf("columns for %T: got a %T", PT(nil), obj)
	}
}

// age is printers.go's translateTimestampSince, measured from now: "<unknown>" for a zero time.
func age(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// microAge is printers.go's translateMicroTimestampSince, measured from now.
func microAge(t metav1.MicroTime, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// int32Value is the value of an optional int32 field as the conversion to the internal type the
// printers read makes it: 0 when nil. (Objects from the API server have their defaults set.)
func int32Value(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// metadataTable is the API server's default table (k8s.io/apiserver's rest.NewDefaultTableConvertor),
// which it serves for a built-in resource that has no printer in printers.go (Roles, ClusterRoles,
// LimitRanges, CSIStorageCapacities): NAME and CREATED AT, the creation time in UTC as RFC 3339.
var metadataTable = Table{
	Columns: columnsOf([]string{"Name", "Created At"}),
	Row:     metadataRow,
}

// metadataRow is the row of metadataTable. It reads only metadata, so it takes any object that has
// metadata: a typed object, *unstructured.Unstructured or *metav1.PartialObjectMetadata.
func metadataRow(obj runtime.Object, _ time.Time) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("columns for a %T: %w", obj, err)
	}
	return []string{m.GetName(), m.GetCreationTimestamp().UTC().Format(time.RFC3339)}, nil
}

// int64Cell formats an integer cell as kubectl prints the server's integer: in decimal.
func int64Cell[T ~int32 | ~int64 | ~int](i T) string { return strconv.FormatInt(int64(i), 10) }

// boolText formats a boolean cell as kubectl prints the server's JSON boolean: "true" or "false".
// (printers.go's printBool, which writes "True" and "False", is boolCell.)
func boolText(b bool) string { return strconv.FormatBool(b) }

// listWithMore is printers.go's listWithMoreString: the first max items joined with commas, then
// " + N more..." when count exceeds them, or "<unset>" for no item at all.
func listWithMore(items []string, count, max int) string {
	if count > max {
		return fmt.Sprintf("%s + %d more...", strings.Join(items[:max], ","), count-max)
	}
	if len(items) == 0 {
		return "<unset>"
	}
	return strings.Join(items, ",")
}
