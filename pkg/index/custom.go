package index

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/util/jsonpath"

	celexpr "github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// indexerFlag is the flag that defines custom indexes; its name starts the errors about them.
const indexerFlag = "--indexer"

// Custom is a user-defined index from --indexer NAME=EXPR.
//
// Name is the index name. JSONPath is the expression as the user wrote it: a CEL expression when
// expr.IsCEL says so (it names the variable object or now, as in "object.spec.color"), otherwise a
// JSONPath, either a full expression such as "{.spec.color}" or kubectl's relaxed form such as
// ".spec.color" or "spec.color"; see [ParseCustom].
//
// The values of a CEL expression (a computed index) are those of expr.Value expressions, in
// expr's canonical string form, deduplicated per object; an evaluation error gives no value and
// is counted by the Definition's Expr guard. A computed index is never MetadataOnly.
//
// Every result of a JSONPath is an indexed value, printed as kubectl's jsonpath prints it: strings
// as they are, numbers and booleans with fmt, maps and lists as compact JSON. A null result, an
// absent path, and a path that fails on an object (such as an index into a string) give no value.
// Values are deduplicated per object. A path that starts with .metadata needs only metadata, so its
// Definition is MetadataOnly.
type Custom struct {
	Name string
	// JSONPath is the expression, JSONPath or CEL; the field keeps its first name.
	JSONPath string
}

// ParseCustom parses the value of one --indexer flag, "NAME=JSONPATH" or "NAME=CEL", splitting on
// the first '='. A CEL expression is compiled and type-checked here; its errors name the flag,
// the index and the position ("--indexer restarts: 1:8: undeclared reference to 'objet'").
//
// NAME must be a lowercase RFC 1123 label ("img", "team-owner") that is not a built-in index name.
// JSONPATH is a single JSONPath expression in the full "{.spec.x}" form or in kubectl's relaxed
// ".spec.x" or "spec.x" form, as custom-columns accepts it; templates with several expressions or
// literal text, and the range and end keywords, are rejected because an index value comes from one
// expression.
//
// Errors name the flag, e.g. `--indexer needs NAME=JSONPATH, got "img"`.
func ParseCustom(s string) (Custom, error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return Custom{}, fmt.Errorf("%s needs NAME=JSONPATH, got %q", indexerFlag, s)
	}
	c := Custom{Name: name, JSONPath: path}
	if _, err := compileCustom(c); err != nil {
		return Custom{}, err
	}
	return c, nil
}

// validateCustomName checks that name can be the index name of a custom index.
func validateCustomName(name string) error {
	if isBuiltinName(name) {
		return fmt.Errorf("%s: index name %q is taken by a built-in index; choose another name", indexerFlag, name)
	}
	if len(validation.IsDNS1123Label(name)) != 0 {
		return fmt.Errorf("%s: invalid index name %q: use at most 63 lowercase letters, digits and '-', "+
			"starting and ending with a letter or digit", indexerFlag, name)
	}
	return nil
}

// compileCustom validates c and builds its Definition.
func compileCustom(c Custom) (Definition, error) {
	if err := validateCustomName(c.Name); err != nil {
		return Definition{}, err
	}
	if celexpr.IsCEL(c.JSONPath) {
		def, err := compileCEL(c)
		if err != nil {
			return Definition{}, err
		}
		def.custom = &customSource{language: "cel", expr: c.JSONPath}
		return def, nil
	}
	expr, err := RelaxedJSONPath(c.JSONPath)
	if err != nil {
		return Definition{}, fmt.Errorf("%s %s: invalid JSONPath %q: %w", indexerFlag, c.Name, c.JSONPath, err)
	}
	metadataOnly, err := checkJSONPath(c.Name, expr)
	if err != nil {
		return Definition{}, fmt.Errorf("%s %s: invalid JSONPath %q: %w", indexerFlag, c.Name, c.JSONPath, err)
	}
	p := &jsonPathIndex{name: c.Name, expr: expr, metadataOnly: metadataOnly}
	p.pool.New = func() any { return p.newJSONPath() }
	return Definition{
		Name:         c.Name,
		Description:  "custom JSONPath " + expr,
		MetadataOnly: metadataOnly,
		Func:         p.indexFunc,
		custom:       &customSource{language: "jsonpath", expr: expr},
	}, nil
}

// jsonRegexp is the pattern of kubectl's RelaxedJSONPathExpression
// (k8s.io/kubectl/pkg/cmd/get/customcolumn.go), which this module does not depend on,
// compiled on first use.
var jsonRegexp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`) })

// RelaxedJSONPath turns "metadata.name", "{metadata.name}", ".metadata.name" and
// "{.metadata.name}" into the JSONPath expression "{.metadata.name}", as kubectl's
// RelaxedJSONPathExpression does for custom-columns.
func RelaxedJSONPath(path string) (string, error) {
	submatches := jsonRegexp().FindStringSubmatch(path)
	if submatches == nil {
		return "", fmt.Errorf("want a single expression such as {.spec.x}, .spec.x or spec.x")
	}
	fieldSpec := submatches[1]
	if fieldSpec == "" {
		fieldSpec = submatches[2]
	}
	return "{." + fieldSpec + "}", nil
}

// checkJSONPath parses expr and checks that it is one expression the index can evaluate without
// state: no range or end, no identifiers that only fail at evaluation. It reports whether the
// expression reads only metadata, that is, starts with the field metadata.
func checkJSONPath(name, expr string) (metadataOnly bool, err error) {
	parser, err := parseJSONPath(name, expr)
	if err != nil {
		return false, err
	}
	if len(parser.Root.Nodes) != 1 {
		return false, fmt.Errorf("want a single expression such as {.spec.x}")
	}
	root, ok := parser.Root.Nodes[0].(*jsonpath.ListNode)
	if !ok {
		return false, fmt.Errorf("want a single expression such as {.spec.x}")
	}
	if err := checkJSONPathNode(root); err != nil {
		return false, err
	}
	if len(root.Nodes) == 0 {
		return false, fmt.Errorf("empty expression")
	}
	first, ok := root.Nodes[0].(*jsonpath.FieldNode)
	return ok && first.Value == "metadata", nil
}

// parseJSONPath parses expr, turning a panic of the parser into an error.
func parseJSONPath(name, expr string) (parser *jsonpath.Parser, err error) {
	defer func() {
		if r := recover(); r != nil {
			parser, err = nil, fmt.Errorf("parsing: %v", r)
		}
	}()
	parser, err = jsonpath.Parse(name, expr)
	if err != nil {
		return nil, err
	}
	if parser == nil || parser.Root == nil {
		return nil, fmt.Errorf("empty expression")
	}
	return parser, nil
}

// checkJSONPathNode rejects the nodes of a parsed JSONPath that make evaluation stateful (range,
// end) or always fail (other identifiers).
func checkJSONPathNode(node jsonpath.Node) error {
	switch n := node.(type) {
	case *jsonpath.ListNode:
		if n == nil {
			return nil
		}
		for _, child := range n.Nodes {
			if err := checkJSONPathNode(child); err != nil {
				return err
			}
		}
	case *jsonpath.UnionNode:
		for _, child := range n.Nodes {
			if err := checkJSONPathNode(child); err != nil {
				return err
			}
		}
	case *jsonpath.FilterNode:
		if err := checkJSONPathNode(n.Left); err != nil {
			return err
		}
		return checkJSONPathNode(n.Right)
	case *jsonpath.IdentifierNode:
		if n.Name == "range" || n.Name == "end" {
			return fmt.Errorf("range and end are not supported in an index")
		}
		return fmt.Errorf("unrecognized identifier %q", n.Name)
	}
	return nil
}

// jsonPathIndex evaluates one custom index's JSONPath. A jsonpath.JSONPath is not safe for
// concurrent use, and the IndexFunc runs on the goroutines of several informers, so each
// evaluation takes a parsed JSONPath of its own from pool.
type jsonPathIndex struct {
	name         string
	expr         string // checked by checkJSONPath
	metadataOnly bool   // expr starts with .metadata
	pool         sync.Pool
}

// newJSONPath parses the expression into a fresh JSONPath that treats missing keys as no result.
func (p *jsonPathIndex) newJSONPath() *jsonpath.JSONPath {
	j := jsonpath.New(p.name).AllowMissingKeys(true)
	if err := j.Parse(p.expr); err != nil {
		// Unreachable: compileCustom parsed the same expression before building p.
		panic(fmt.Sprintf("parsing checked JSONPath %q: %v", p.expr, err))
	}
	return j
}

// indexFunc is the IndexFunc of a custom index. Typed and metadata-only objects are converted to
// their unstructured form first, so field names follow JSON tags as in kubectl; unstructured
// objects are read in place. Every result of the expression is a value, rendered by
// formatJSONPathValue and deduplicated. An absent path, and any evaluation error, give no value.
func (p *jsonPathIndex) indexFunc(obj interface{}) ([]string, error) {
	var content map[string]interface{}
	switch t := Unwrap(obj).(type) {
	case *unstructured.Unstructured:
		content = t.Object
	case metav1.ObjectMetaAccessor:
		if p.metadataOnly {
			// The expression reads nothing outside metadata: convert only that.
			content = metadataContent(t)
			break
		}
		content, _ = object.Content(t)
	default:
		content, _ = object.Content(t)
	}
	if content == nil {
		return nil, nil
	}
	return p.evaluate(content), nil
}

// metadataContent returns the unstructured form of obj's metadata alone, {"metadata": {...}}, or nil.
func metadataContent(obj metav1.ObjectMetaAccessor) map[string]interface{} {
	objectMeta, ok := obj.GetObjectMeta().(*metav1.ObjectMeta)
	if !ok || objectMeta == nil {
		content, _ := object.Content(obj)
		return content
	}
	metadata, err := runtime.DefaultUnstructuredConverter.ToUnstructured(objectMeta)
	if err != nil {
		return nil
	}
	return map[string]interface{}{"metadata": metadata}
}

// evaluate runs the JSONPath on content. A panic inside the jsonpath package is contained: it
// would otherwise take down the informer that called the IndexFunc.
func (p *jsonPathIndex) evaluate(content map[string]interface{}) (values []string) {
	j := p.pool.Get().(*jsonpath.JSONPath)
	defer func() {
		if r := recover(); r != nil {
			values = nil
			return // drop j: its state is unknown
		}
		p.pool.Put(j)
	}()
	results, err := j.FindResults(content)
	if err != nil {
		return nil
	}
	var seen map[string]struct{}
	for _, group := range results {
		for _, r := range group {
			v, ok := formatJSONPathValue(r)
			if !ok {
				continue
			}
			values, seen = appendUniqueValue(values, seen, v)
		}
	}
	return values
}

// appendUniqueValue appends v to values unless it is there already, scanning small slices and
// switching to the set seen once values grow.
func appendUniqueValue(values []string, seen map[string]struct{}, v string) ([]string, map[string]struct{}) {
	const scanLimit = 16
	if seen == nil && len(values) < scanLimit {
		return appendUnique(values, v), nil
	}
	if seen == nil {
		seen = make(map[string]struct{}, 2*len(values))
		for _, have := range values {
			seen[have] = struct{}{}
		}
	}
	if _, ok := seen[v]; ok {
		return values, seen
	}
	seen[v] = struct{}{}
	return append(values, v), seen
}

// formatJSONPathValue renders one JSONPath result as an index value the way kubectl's jsonpath
// printer prints it: strings as they are, numbers and booleans with fmt, and maps, lists and
// structs as compact JSON. A null result is no value.
func formatJSONPathValue(v reflect.Value) (string, bool) {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", false
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Invalid:
		return "", false
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		return fmt.Sprint(v.Interface()), true
	case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct:
		if !v.CanInterface() {
			return "", false
		}
		b, err := json.Marshal(v.Interface())
		if err != nil {
			return "", false
		}
		return string(b), true
	default:
		if !v.CanInterface() {
			return "", false
		}
		return fmt.Sprint(v.Interface()), true
	}
}
