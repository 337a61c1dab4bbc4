package columns

import (
	"fmt"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/util/jsonpath"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// SortKey orders objects by the first value a JSONPath finds in each, as
// kubectl get --sort-by does: numbers by value, strings that both parse as
// quantities by quantity, other strings byte-wise, lists element by element;
// an object without the field sorts first. Unlike kubectl, ties keep their
// order (the sort is stable). A SortKey is not safe for concurrent use.
type SortKey struct {
	expr   string
	parser *jsonpath.JSONPath
}

// ParseSortKey parses the value of --sort-by, a JSONPath in any of the
// relaxed forms kubectl accepts ("{.metadata.name}", ".metadata.name",
// "metadata.name").
func ParseSortKey(path string) (*SortKey, error) {
	expr, err := index.RelaxedJSONPath(path)
	if err != nil {
		return nil, fmt.Errorf("--sort-by %q: %w", path, err)
	}
	parser := jsonpath.New("sorting").AllowMissingKeys(true)
	if err := parser.Parse(expr); err != nil {
		return nil, fmt.Errorf("--sort-by %q: %w", path, err)
	}
	return &SortKey{expr: expr, parser: parser}, nil
}

// Order returns the indexes of contents (objects as JSON-like maps, as the
// API serves them) in sorted order. As kubectl does, it fails when no object
// has the field, or when two values cannot be compared.
func (k *SortKey) Order(contents []map[string]interface{}) ([]int, error) {
	values := make([]*reflect.Value, len(contents))
	found := false
	for i, content := range contents {
		results, err := k.parser.FindResults(content)
		if err != nil {
			return nil, fmt.Errorf("--sort-by %s: %w", k.expr, err)
		}
		if len(results) > 0 && len(results[0]) > 0 {
			v := results[0][0]
			values[i] = &v
			found = true
		}
	}
	if !found && len(contents) > 0 {
		return nil, fmt.Errorf("couldn't find any field with path %q in the list of objects", k.expr)
	}
	order := make([]int, len(contents))
	for i := range order {
		order[i] = i
	}
	var sortErr error
	sort.SliceStable(order, func(a, b int) bool {
		va, vb := values[order[a]], values[order[b]]
		switch {
		case va == nil:
			return vb != nil
		case vb == nil:
			return false
		}
		less, err := isLess(*va, *vb)
		if err != nil && sortErr == nil {
			sortErr = fmt.Errorf("--sort-by %s: %w", k.expr, err)
		}
		return less
	})
	if sortErr != nil {
		return nil, sortErr
	}
	return order, nil
}

// isLess compares two values of JSON-like content (int64, float64, string,
// bool, lists, nil) the way kubectl's sorter compares the values of
// unstructured objects; nil sorts first.
func isLess(i, j reflect.Value) (bool, error) {
	return lessValue(plain(i), plain(j))
}

// plain returns the value v holds, or nil.
func plain(v reflect.Value) interface{} {
	if !v.IsValid() || ((v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer || v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.IsNil()) {
		return nil
	}
	return v.Interface()
}

func lessValue(a, b interface{}) (bool, error) {
	switch {
	case a == nil:
		return b != nil, nil
	case b == nil:
		return false, nil
	}
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return x < y, nil
		}
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return stringLess(x, y), nil
		}
	case bool:
		if y, ok := b.(bool); ok {
			return !x && y, nil
		}
	case []interface{}:
		if y, ok := b.([]interface{}); ok {
			for idx := 0; idx < min(len(x), len(y)); idx++ {
				less, err := lessValue(x[idx], y[idx])
				if err != nil || !less {
					return less, err
				}
			}
			return true, nil
		}
	}
	return false, fmt.Errorf("cannot compare %T with %T", a, b)
}

// number returns a JSON number as a float64.
func number(v interface{}) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}

// stringLess compares two strings as quantities when both parse as one
// ("100m" < "1"), else byte-wise, as kubectl does.
func stringLess(a, b string) bool {
	qa, errA := resource.ParseQuantity(a)
	qb, errB := resource.ParseQuantity(b)
	if errA != nil || errB != nil {
		return a < b
	}
	return qa.Cmp(qb) < 0
}
