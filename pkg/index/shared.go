package index

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/cache"

	celexpr "github.com/kubectl-informer/kubectl-informer/pkg/expr"
)

// This file holds how one custom index serves several commands from one shared informer (a warm
// cache's): it is registered under a name that identifies its definition, not under the name a
// command gave it, and each command reads it under its own name (RenamedIndexer).

// customSource is what defines the values of a custom index: the language of its expression and
// the expression, a JSONPath in its full form ("{.spec.x}", as RelaxedJSONPath gives it) or CEL as
// written.
type customSource struct {
	language string // "jsonpath" or "cel"
	expr     string
}

// SharedName returns the index name under which def can be registered on an informer that several
// commands share: "custom:jsonpath:{.spec.containers[*].image}", "custom:cel:EXPR". It names the
// definition rather than the command's name for it: two commands that define "img" differently
// get two names, and one expression under two names ("img" and "image-of") gets one; a JSONPath
// written ".spec.x", "spec.x" or "{.spec.x}" gets one too. ok is false for an index that is not
// custom: its name identifies it already. A SharedName never equals a built-in or custom index
// name (those have no "custom:" prefix).
func SharedName(def Definition) (name string, ok bool) {
	if def.custom == nil {
		return "", false
	}
	return "custom:" + def.custom.language + ":" + def.custom.expr, true
}

// quotedRegexp matches a quoted string, and nowNameRegexp the variable
// now; each is compiled on first use.
var (
	quotedRegexp  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`) })
	nowNameRegexp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[^.\w@$])now\b`) })
)

// ReadsNow reports whether def is a computed index whose expression names the variable now. Its
// values depend on when each object was indexed, so an index kept for later commands would not
// give a later command the values its own index would: such an index cannot be shared. It may
// report true for an expression that only shadows now (a comprehension variable of that name).
func ReadsNow(def Definition) bool {
	if def.custom == nil || def.custom.language != "cel" {
		return false
	}
	return nowNameRegexp().MatchString(quotedRegexp().ReplaceAllString(def.custom.expr, `""`))
}

// Shared is a custom index compiled once for an informer that several commands share, registered
// under its SharedName (Definition.Name). Its values are those of the commands' own Definitions of
// the same expression. What a command reports of a computed index's evaluations — the objects it
// failed on, a hit of CEL's cost limit — is its own (the Definition's Expr guard), so Shared keeps
// what a command needs to rebuild that: the storage keys whose latest evaluation failed
// (FailingKeys), which the command evaluates again with its own Definition, and whether an
// evaluation hit the cost limit (Broken), after which Shared evaluates nothing more (each such
// evaluation takes the whole budget, on the informer's goroutine). A Shared is safe for concurrent
// use.
type Shared struct {
	// Definition is the index to register: Name is the SharedName.
	Definition Definition

	prg    *celexpr.Program // nil for a JSONPath index
	broken atomic.Bool
	mu     sync.Mutex
	// failing holds the storage keys whose latest evaluation failed. A key is added when the
	// object client-go removes from the index fails too (a deletion evaluates the old object),
	// so it may name objects the cache no longer holds.
	failing map[string]struct{}
}

// NewShared returns the shared index of def, a custom Definition that does not read now.
func NewShared(def Definition) (*Shared, error) {
	name, ok := SharedName(def)
	if !ok {
		return nil, fmt.Errorf("index %q is not a custom index", def.Name)
	}
	if ReadsNow(def) {
		return nil, fmt.Errorf("%s %s: a computed index that reads now cannot be shared", indexerFlag, def.Name)
	}
	s := &Shared{Definition: Definition{
		Name:         name,
		Description:  def.Description,
		MetadataOnly: def.MetadataOnly,
		custom:       def.custom,
	}}
	switch def.custom.language {
	case "jsonpath":
		p := &jsonPathIndex{name: def.Name, expr: def.custom.expr, metadataOnly: def.MetadataOnly}
		p.pool.New = func() any { return p.newJSONPath() }
		s.Definition.Func = p.indexFunc
	case "cel":
		prg, err := celexpr.Compile(indexerFlag+" "+def.Name, def.custom.expr, celexpr.Value)
		if err != nil {
			return nil, err
		}
		s.prg = prg
		s.failing = map[string]struct{}{}
		s.Definition.Func = s.celIndexFunc
	default:
		return nil, fmt.Errorf("index %q: unknown expression language %q", def.Name, def.custom.language)
	}
	return s, nil
}

// celIndexFunc is the IndexFunc of a shared computed index: celIndexFunc's values, with the
// failures recorded by storage key rather than counted by one command's guard.
func (s *Shared) celIndexFunc(obj interface{}) ([]string, error) {
	obj = Unwrap(obj)
	if obj == nil || s.broken.Load() {
		return nil, nil
	}
	values, err := s.prg.Values(context.Background(), obj, time.Now())
	key, keyErr := cache.MetaNamespaceKeyFunc(obj)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		var ee *celexpr.EvalError
		if errors.As(err, &ee) && ee.CostLimitExceeded() {
			s.broken.Store(true)
		}
		if keyErr == nil {
			s.failing[key] = struct{}{}
		}
		return nil, nil
	}
	if keyErr == nil {
		delete(s.failing, key)
	}
	var unique []string
	var seen map[string]struct{}
	for _, v := range values {
		unique, seen = appendUniqueValue(unique, seen, v)
	}
	return unique, nil
}

// FailingKeys returns, sorted, the storage keys whose latest evaluation failed, some perhaps of
// objects no longer cached; none for a JSONPath index, which has no failures.
func (s *Shared) FailingKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.failing))
	for k := range s.failing {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Broken reports whether an evaluation hit CEL's cost limit: the index has held no values since.
func (s *Shared) Broken() bool { return s.broken.Load() }

// RenamedIndexer is an informer's indexer read under other index names: Names maps the name a
// reader uses to the name registered in Indexer (a shared custom index's SharedName); other names
// are read as they are. It is how a command reads a shared index under the name it gave it.
type RenamedIndexer struct {
	cache.Indexer
	Names map[string]string
}

func (x RenamedIndexer) registered(name string) string {
	if r, ok := x.Names[name]; ok {
		return r
	}
	return name
}

// GetIndexers returns Indexer's index functions, and those of Names under the reader's names.
func (x RenamedIndexer) GetIndexers() cache.Indexers {
	indexers := cache.Indexers{}
	for name, fn := range x.Indexer.GetIndexers() {
		indexers[name] = fn
	}
	for name, registered := range x.Names {
		if fn, ok := indexers[registered]; ok {
			indexers[name] = fn
		}
	}
	return indexers
}

// Index implements cache.Indexer.
func (x RenamedIndexer) Index(indexName string, obj interface{}) ([]interface{}, error) {
	return x.Indexer.Index(x.registered(indexName), obj)
}

// IndexKeys implements cache.Indexer.
func (x RenamedIndexer) IndexKeys(indexName, indexedValue string) ([]string, error) {
	return x.Indexer.IndexKeys(x.registered(indexName), indexedValue)
}

// ListIndexFuncValues implements cache.Indexer.
func (x RenamedIndexer) ListIndexFuncValues(indexName string) []string {
	return x.Indexer.ListIndexFuncValues(x.registered(indexName))
}

// ByIndex implements cache.Indexer.
func (x RenamedIndexer) ByIndex(indexName, indexedValue string) ([]interface{}, error) {
	return x.Indexer.ByIndex(x.registered(indexName), indexedValue)
}
