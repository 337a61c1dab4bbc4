package columns

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/util/jsonpath"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// PrinterColumn is one entry of a CustomResourceDefinition version's additionalPrinterColumns
// (apiextensions.k8s.io/v1 CustomResourceColumnDefinition), kept here so that the package does not
// link k8s.io/apiextensions-apiserver.
type PrinterColumn struct {
	// Name is the column's name; kubectl prints it in upper case.
	Name string
	// Type is the OpenAPI type of the column: "integer", "number", "string", "boolean" or "date".
	Type string
	// Format is the OpenAPI format of the column, e.g. "int32" or "name"; it does not change the cells.
	Format string
	// Description is the column's description; the package does not use it.
	Description string
	// Priority above 0 makes the column wide-only.
	Priority int32
	// JSONPath is the simple JSONPath, without braces, evaluated against each object, e.g. ".spec.replicas".
	JSONPath string
}

// defaultPrinterColumns is what the API server serves for a CRD version with no
// additionalPrinterColumns (serveDefaultColumnsIfEmpty in k8s.io/apiextensions-apiserver/pkg/apiserver).
var defaultPrinterColumns = []PrinterColumn{
	{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
}

// PrinterColumnsFromCRD returns the additionalPrinterColumns of the version named version of crd,
// an apiextensions.k8s.io/v1 CustomResourceDefinition held as unstructured, in the CRD's order.
// It returns no columns, and no error, for a version that declares none. It returns an error when
// the CRD has no such version, or when a column is not of the shape the CRD schema requires.
func PrinterColumnsFromCRD(crd *unstructured.Unstructured, version string) ([]PrinterColumn, error) {
	versions, _, err := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if err != nil {
		return nil, fmt.Errorf("reading versions of CRD %s: %w", crd.GetName(), err)
	}
	for _, v := range versions {
		v, ok := v.(map[string]interface{})
		if !ok || v["name"] != version {
			continue
		}
		raw, _, err := unstructured.NestedSlice(v, "additionalPrinterColumns")
		if err != nil {
			return nil, fmt.Errorf("reading printer columns of CRD %s version %s: %w", crd.GetName(), version, err)
		}
		cols := make([]PrinterColumn, 0, len(raw))
		for i, r := range raw {
			content, ok := r.(map[string]interface{})
			if !ok {
				return nil, fmt.Errorf("reading printer column %d of CRD %s version %s: got a %T", i, crd.GetName(), version, r)
			}
			var col struct {
				Name        string `json:"name"`
				Type        string `json:"type"`
				Format      string `json:"format"`
				Description string `json:"description"`
				Priority    int32  `json:"priority"`
				JSONPath    string `json:"jsonPath"`
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, &col); err != nil {
				return nil, fmt.Errorf("reading printer column %d of CRD %s version %s: %w", i, crd.GetName(), version, err)
			}
			cols = append(cols, PrinterColumn(col))
		}
		return cols, nil
	}
	return nil, fmt.Errorf("CRD %s has no version %q", crd.GetName(), version)
}

// ForCustomResource returns the Table the API server serves for a custom resource whose CRD
// version has the given additionalPrinterColumns: NAME, then one column per printer column, in
// order, wide when its priority is above 0. With no printer columns it is NAME and AGE, as the
// server serves it. It returns an error when a JSONPath does not parse, as the server refuses it.
//
// The Table's RowFunc reads any object as unstructured content, converting typed objects first.
// A column whose JSONPath finds nothing, or a value of another type than the column's, is an
// empty cell. A "string" column prints the value as kubectl's JSONPath printer does (JSON for maps
// and lists); an "integer" column truncates a float; a "number" column prints as kubectl prints
// the float it decoded from the server's JSON; a "boolean" column prints true or false; a "date"
// column is the age of an RFC 3339 time, "<invalid>" for another string, "<unknown>" for an empty one.
func ForCustomResource(printerColumns []PrinterColumn) (Table, error) {
	if len(printerColumns) == 0 {
		printerColumns = defaultPrinterColumns
	}
	printerColumns = append([]PrinterColumn(nil), printerColumns...)
	// Parse once here to report errors; each RowFunc call takes parsed paths from a pool, as
	// a jsonpath.JSONPath is not safe for concurrent use.
	parse := func() ([]*jsonpath.JSONPath, error) {
		paths := make([]*jsonpath.JSONPath, len(printerColumns))
		for i, col := range printerColumns {
			p := jsonpath.New(col.Name)
			if err := p.Parse("{" + col.JSONPath + "}"); err != nil {
				return nil, fmt.Errorf("unrecognized column definition %q: %w", col.JSONPath, err)
			}
			p.AllowMissingKeys(true)
			paths[i] = p
		}
		return paths, nil
	}
	paths, err := parse()
	if err != nil {
		return Table{}, err
	}
	pool := &sync.Pool{New: func() any {
		paths, _ := parse() // parsed once already without error
		return &paths
	}}
	pool.Put(&paths)

	cols := make([]Column, 0, 1+len(printerColumns))
	cols = append(cols, Column{Header: "NAME", Format: FormatName})
	for _, c := range printerColumns {
		cols = append(cols, Column{Header: strings.ToUpper(c.Name), Wide: c.Priority > 0, Format: c.Format})
	}

	row := func(obj runtime.Object, now time.Time) ([]string, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, fmt.Errorf("columns for a custom resource: %w", err)
		}
		content, err := object.Content(obj)
		if err != nil {
			return nil, fmt.Errorf("columns of %q: %w", m.GetName(), err)
		}
		pooled := pool.Get().(*[]*jsonpath.JSONPath)
		defer pool.Put(pooled)
		paths := *pooled
		cells := make([]string, 1, 1+len(paths))
		cells[0] = m.GetName()
		for i, path := range paths {
			cells = append(cells, customCell(path, printerColumns[i].Type, content, now))
		}
		return cells, nil
	}
	return Table{Columns: cols, Row: row}, nil
}

// customCell is one cell of the tableconvertor's ConvertToTable, as kubectl prints it.
func customCell(path *jsonpath.JSONPath, columnType string, content map[string]interface{}, now time.Time) string {
	results, err := path.FindResults(content)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return ""
	}
	// Simple JSONPaths have one result at most.
	value := results[0][0].Interface()
	if columnType == "string" {
		var buf bytes.Buffer
		if err := path.PrintResults(&buf, []reflect.Value{reflect.ValueOf(value)}); err != nil {
			return ""
		}
		return buf.String()
	}
	return jsonValueCell(columnType, value, now)
}

// jsonValueCell is the tableconvertor's cellForJSONValue, printed as kubectl prints the cell it
// decodes from the server's JSON.
func jsonValueCell(columnType string, value interface{}, now time.Time) string {
	switch columnType {
	case "integer":
		switch v := value.(type) {
		case int64:
			return strconv.FormatInt(v, 10)
		case float64:
			return strconv.FormatInt(int64(v), 10)
		case json.Number:
			if i, err := v.Int64(); err == nil {
				return strconv.FormatInt(i, 10)
			}
		}
	case "number":
		switch v := value.(type) {
		case int64:
			return numberCell(float64(v))
		case float64:
			return numberCell(v)
		case json.Number:
			if f, err := v.Float64(); err == nil {
				return numberCell(f)
			}
		}
	case "boolean":
		if b, ok := value.(bool); ok {
			return strconv.FormatBool(b)
		}
	case "date":
		if s, ok := value.(string); ok {
			var t metav1.Time
			if err := t.UnmarshalQueryParameter(s); err != nil {
				return "<invalid>"
			}
			if t.IsZero() {
				return "<unknown>"
			}
			return duration.HumanDuration(now.Sub(t.Time))
		}
	}
	return ""
}

// numberCell prints a number cell as kubectl does after the JSON round trip: the server writes
// the float64 with encoding/json, kubectl reads it back as an int64 when the text is an integer
// that fits, as a float64 otherwise, and prints it with fmt.
func numberCell(f float64) string {
	text, err := json.Marshal(f)
	if err != nil { // NaN or an infinity, which JSON cannot hold: the server fails the request
		return ""
	}
	if i, err := strconv.ParseInt(string(text), 10, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	return fmt.Sprint(f)
}
