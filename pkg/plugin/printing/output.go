// Package printing prints what commands answer as kubectl prints it: the
// -o formats (json, yaml, name, jsonpath, custom-columns, go-template) of
// objects and lists, kubectl's plain tables, a List of several contexts'
// items (ContextList), and the names kubectl prints for an object.
package printing

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/util/jsonpath"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// Output is a parsed -o/--output value.
type Output struct {
	// Format is "" (table), "wide", "custom-columns", or a cli-runtime
	// printer's format: json, yaml, name, jsonpath=…, go-template=….
	Format string
	// Printer prints json, yaml, name and template formats.
	Printer printers.ResourcePrinter
	// Columns are the custom-columns.
	Columns []CustomColumn
}

type CustomColumn struct {
	Header string
	Path   *jsonpath.JSONPath
}

// ParseOutput parses -o. It reads a file only for jsonpath-file and
// template-file formats, as kubectl does.
func ParseOutput(value string) (Output, error) {
	switch {
	case value == "" || value == "wide":
		return Output{Format: value}, nil
	case strings.HasPrefix(value, "custom-columns="):
		cols, err := parseCustomColumns(strings.TrimPrefix(value, "custom-columns="))
		if err != nil {
			return Output{}, err
		}
		return Output{Format: "custom-columns", Columns: cols}, nil
	case value == "custom-columns":
		return Output{}, fmt.Errorf("-o custom-columns needs a spec, e.g. -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName")
	}
	// cli-runtime's printers split "jsonpath=…" and "go-template=…"
	// themselves.
	printFlags := genericclioptions.NewPrintFlags("")
	printFlags.OutputFormat = &value
	format, _, _ := strings.Cut(value, "=")
	printer, err := printFlags.ToPrinter()
	if err != nil {
		if genericclioptions.IsNoCompatiblePrinterError(err) {
			allowed := append([]string{"wide", "custom-columns"}, printFlags.AllowedFormats()...)
			return Output{}, fmt.Errorf("unknown -o/--output format %q; allowed formats are: %s", value, strings.Join(allowed, ", "))
		}
		return Output{}, fmt.Errorf("invalid -o/--output %q: %w", value, err)
	}
	return Output{Format: format, Printer: printer}, nil
}

func parseCustomColumns(spec string) ([]CustomColumn, error) {
	var cols []CustomColumn
	for _, part := range strings.Split(spec, ",") {
		header, path, ok := strings.Cut(part, ":")
		if !ok || header == "" || path == "" {
			return nil, fmt.Errorf("-o custom-columns: expected HEADER:JSONPATH, got %q", part)
		}
		expr, err := index.RelaxedJSONPath(path)
		if err != nil {
			return nil, fmt.Errorf("-o custom-columns: invalid JSONPath %q for column %s: %w", path, header, err)
		}
		jp := jsonpath.New(header).AllowMissingKeys(true)
		if err := jp.Parse(expr); err != nil {
			return nil, fmt.Errorf("-o custom-columns: invalid JSONPath %q for column %s: %w", path, header, err)
		}
		cols = append(cols, CustomColumn{Header: header, Path: jp})
	}
	return cols, nil
}

// NeedsFullObjects reports whether the format reads more than metadata.
func (o Output) NeedsFullObjects() bool {
	switch o.Format {
	case "", "wide", "name":
		return false
	}
	return true
}

// IsTable reports whether the format is one of the tables.
func (o Output) IsTable() bool {
	return o.Format == "" || o.Format == "wide" || o.Format == "custom-columns"
}

// printListObject prints a v1 List of items, and beside them field's value
// when field is not "": as YAML for format yaml, else with printer (JSON,
// templates).
func printListObject(w io.Writer, printer printers.ResourcePrinter, format string, items []interface{}, field string, value interface{}) error {
	list := map[string]interface{}{"apiVersion": "v1", "kind": "List", "metadata": map[string]interface{}{"resourceVersion": ""}, "items": items}
	if field != "" {
		list[field] = value
	}
	if format == "yaml" {
		b, err := MarshalYAML(list)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return printer.PrintObj(&unstructured.Unstructured{Object: list}, w)
}

// WriteData writes v to w as -o yaml (MarshalYAML) or, for any other
// format, -o json (indented by four spaces, as kubectl prints) print it.
func WriteData(w io.Writer, format string, v interface{}) error {
	var (
		b   []byte
		err error
	)
	if format == "yaml" {
		b, err = MarshalYAML(v)
	} else {
		b, err = json.MarshalIndent(v, "", "    ")
		b = append(b, '\n')
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// MarshalYAML returns obj as YAML, as sigs.k8s.io/yaml.Marshal (and so
// kubectl -o yaml) does, but also when a string holds a character YAML may
// not carry raw: DEL, the C1 controls (U+0080–U+009F, NEL included, which
// YAML would read as a line break) and the noncharacters U+FFFE and U+FFFF.
// sigs.k8s.io/yaml goes through JSON text that it parses as YAML, and the
// YAML reader refuses those characters raw ("yaml: control characters are
// not allowed"; kubernetes/kubectl#774). Escaped in the JSON as \uXXXX they
// keep their value, and the YAML writer escapes them in turn (see
// terminal.EscapeForYAML).
func MarshalYAML(obj interface{}) ([]byte, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding as JSON: %w", err)
	}
	return yaml.JSONToYAML([]byte(terminal.EscapeForYAML(string(j))))
}
