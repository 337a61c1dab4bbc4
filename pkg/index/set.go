package index

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
)

// Definition is a named index over cached objects.
type Definition struct {
	// Name is the index name as the user writes it: "node", "label:app", "img". It is also the
	// name to register Func under in cache.Indexers.
	Name string
	// Description is one line for `kubectl informer indexers`.
	Description string
	// MetadataOnly reports whether Func reads only object metadata (namespace, labels,
	// annotations, ownerReferences), so a metadata-only informer is enough for it.
	MetadataOnly bool
	// Relation says which other types' caches Func reads; see OwnerRoot.
	Relation Relation
	// Func returns the indexed values of an object. It is safe for concurrent use and accepts
	// typed objects, *unstructured.Unstructured, *metav1.PartialObjectMetadata and a
	// cache.DeletedFinalStateUnknown wrapping one of them.
	Func cache.IndexFunc
	// Expr is set for a computed (CEL) index only: the guard of its expression, which counts the
	// objects it failed on and says when it hit the cost limit (see expr.Guard).
	Expr *expr.Guard
	// custom is set for a custom index only: its expression, for sharing it (see SharedName).
	custom *customSource
}

// Values returns the indexed values of obj under def, or nil when obj has none or def.Func fails.
// It is meant for showing the queried values next to objects in tables.
func Values(def Definition, obj interface{}) []string {
	if r, ok := Unwrap(obj).(*Record); ok {
		// A Record holds what the whole object's values were.
		if values, ok, err := r.IndexValues(def.Name); ok {
			if err != nil {
				return nil
			}
			return values
		}
	}
	if def.Func == nil {
		return nil
	}
	values, err := def.Func(obj)
	if err != nil {
		return nil
	}
	return values
}

// Set resolves index names to Definitions: the built-in indexes plus custom ones. A Set is
// immutable after NewSet and safe for concurrent use. The zero Set, and a nil *Set, know only the
// built-in indexes.
type Set struct {
	custom  []Definition          // in the order given to NewSet
	byName  map[string]Definition // custom definitions by index name
	builtin map[string]Definition // fixed-name built-ins, built once
}

// NewSet returns a Set of the built-in indexes and custom. It validates each custom index as
// ParseCustom does, and rejects two custom indexes with the same name.
func NewSet(custom ...Custom) (*Set, error) {
	s := &Set{
		byName:  make(map[string]Definition, len(custom)),
		builtin: fixedBuiltins(),
	}
	for _, c := range custom {
		if _, dup := s.byName[c.Name]; dup {
			return nil, fmt.Errorf("%s: duplicate index name %q", indexerFlag, c.Name)
		}
		def, err := compileCustom(c)
		if err != nil {
			return nil, err
		}
		s.byName[c.Name] = def
		s.custom = append(s.custom, def)
	}
	return s, nil
}

// fixedBuiltins returns the Definitions of the built-in indexes whose index name has no key.
func fixedBuiltins() map[string]Definition {
	descriptions := make(map[string]string)
	for _, b := range Builtins() {
		descriptions[b.Name] = b.Description
	}
	defs := []Definition{
		{Name: namespaceIndexName, MetadataOnly: true, Func: namespaceIndexFunc},
		{Name: ownerIndexName, MetadataOnly: true, Func: ownerIndexFunc},
		{Name: ownerUIDIndexName, MetadataOnly: true, Func: ownerUIDIndexFunc},
		{Name: nodeIndexName, Func: nodeIndexFunc},
		{Name: phaseIndexName, Func: phaseIndexFunc},
		{Name: imageIndexName, Func: imageIndexFunc},
	}
	byName := make(map[string]Definition, len(defs))
	for _, d := range defs {
		d.Description = descriptions[d.Name]
		byName[d.Name] = d
	}
	return byName
}

// Lookup returns the Definition for an index name: "namespace", "label:KEY", "annotation:KEY",
// "owner", "owner-uid", "owner-root", "selected-by", "selects", "node", "node.label:KEY", "node.annotation:KEY",
// "phase", "image", "uses", "used-by", "event.reason", "event.type", "event.message", or the name of a custom
// index. KEY must be a
// valid label or annotation key (a qualified name such as "app" or "example.com/team").
//
// An unknown name is an error that lists the known names, e.g.
// `unknown index "nod"; known: namespace, label:KEY, annotation:KEY, owner, owner-uid, owner-root, selected-by, selects, node, node.label:KEY, node.annotation:KEY, phase, image, uses, used-by, img`.
func (s *Set) Lookup(name string) (Definition, error) {
	if def, ok, err := lookupNodeRelation(name); ok {
		return def, err
	}
	if def, ok := lookupEventRelation(name); ok {
		return def, nil
	}
	if key, ok := strings.CutPrefix(name, labelPrefix); ok {
		if err := validateKey(name, "label", key); err != nil {
			return Definition{}, err
		}
		return Definition{
			Name:         name,
			Description:  fmt.Sprintf("the value of label %q", key),
			MetadataOnly: true,
			Func:         labelIndexFunc(key),
		}, nil
	}
	if key, ok := strings.CutPrefix(name, annotationPrefix); ok {
		if err := validateKey(name, "annotation", key); err != nil {
			return Definition{}, err
		}
		return Definition{
			Name:         name,
			Description:  fmt.Sprintf("the value of annotation %q", key),
			MetadataOnly: true,
			Func:         annotationIndexFunc(key),
		}, nil
	}
	switch name {
	case ownerRootIndexName:
		return unboundOwnerRoot(), nil
	case selectedByIndexName:
		return SelectedBy(nil), nil
	case selectsIndexName:
		return Selects(nil), nil
	case usesIndexName:
		return UsesIndex(nil), nil
	case usedByIndexName:
		return UsedByIndex(nil), nil
	}
	builtin := fixedBuiltinsOf(s)
	if def, ok := builtin[name]; ok {
		return def, nil
	}
	if s != nil {
		if def, ok := s.byName[name]; ok {
			return def, nil
		}
	}
	return Definition{}, fmt.Errorf("unknown index %q; known: %s", name, strings.Join(s.Names(), ", "))
}

// fixedBuiltinsOf returns the built-ins s holds, building them for a zero or nil Set.
func fixedBuiltinsOf(s *Set) map[string]Definition {
	if s == nil || s.builtin == nil {
		return fixedBuiltins()
	}
	return s.builtin
}

// validateKey checks the key of a label or annotation index name.
func validateKey(name, what, key string) error {
	if key == "" {
		return fmt.Errorf("index %q needs %s %s key, e.g. %s:app", name, article(what), what, what)
	}
	if errs := validation.IsQualifiedName(key); len(errs) != 0 {
		return fmt.Errorf("index %q: invalid %s key %q: %s", name, what, key, strings.Join(errs, "; "))
	}
	return nil
}

// article returns the indefinite article for word.
func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// Names returns the index names s knows, for completion and error messages: the built-in names
// in the order of Builtins, with KEY standing for a label or annotation key, then the custom names
// in the order given to NewSet.
func (s *Set) Names() []string {
	builtins := Builtins()
	var custom []Definition
	if s != nil {
		custom = s.custom
	}
	names := make([]string, 0, len(builtins)+len(custom))
	for _, b := range builtins {
		names = append(names, b.Name)
	}
	for _, d := range custom {
		names = append(names, d.Name)
	}
	return names
}

// Custom returns the Definitions of the custom indexes in the order given to NewSet, for listings
// such as `kubectl informer indexers`. The caller owns the returned slice.
func (s *Set) Custom() []Definition {
	if s == nil {
		return nil
	}
	return append([]Definition(nil), s.custom...)
}
