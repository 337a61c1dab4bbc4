package engines

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// This file holds what query and watch share about CEL expressions: --filter,
// --until, and computed indexes (--indexer NAME=CEL).

// FilterFlagUsage is the help of --filter, on query and watch.
const FilterFlagUsage = "Keep only objects for which the CEL expression is true, e.g. --filter 'object.status.containerStatuses.exists(s, s.restartCount > 3)'. " +
	"It sees object (the object as the API returns it) and now (a timestamp). Applied after --index/--where; an evaluation error counts as false and is reported once on stderr."

// CompilePredicate compiles the bool expression given to flag; "" gives nil.
// Errors name the flag and the position, "--filter: 1:8: ...".
func CompilePredicate(flag, src string) (*expr.Guard, error) {
	if src == "" {
		return nil, nil
	}
	prg, err := expr.Compile(flag, src, expr.Predicate)
	if err != nil {
		return nil, err
	}
	return expr.NewGuard(prg), nil
}

// FilterObjects returns the objects of objs, in order, for which filter is
// true at now. Typed objects are converted for each evaluation, which costs
// most of it, so they are evaluated on every CPU at once.
func FilterObjects(ctx context.Context, filter *expr.Guard, objs []interface{}, now time.Time) []interface{} {
	keep := make([]bool, len(objs))
	workers := min(runtime.GOMAXPROCS(0), len(objs)/filterChunk+1)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := int(next.Add(filterChunk)) - filterChunk
				if start >= len(objs) {
					return
				}
				for i := start; i < min(start+filterChunk, len(objs)); i++ {
					keep[i] = filter.Match(ctx, objs[i], now)
				}
			}
		}()
	}
	wg.Wait()
	kept := objs[:0]
	for i, obj := range objs {
		if keep[i] {
			kept = append(kept, obj)
		}
	}
	return kept
}

// filterChunk is how many objects a filtering goroutine takes at a time.
const filterChunk = 256

// ExprGuards returns the guards of guard (if not nil) and of every computed
// index in defs, each once.
func ExprGuards(defs []index.Definition, guards ...*expr.Guard) []*expr.Guard {
	var out []*expr.Guard
	seen := map[*expr.Guard]bool{}
	add := func(g *expr.Guard) {
		if g != nil && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	for _, g := range guards {
		add(g)
	}
	for _, def := range defs {
		add(def.Expr)
	}
	return out
}

// ExprFatal returns the first guard's error that ends the command: an
// expression that hit CEL's cost limit.
func ExprFatal(guards []*expr.Guard) error {
	for _, g := range guards {
		if err := g.Fatal(); err != nil {
			return err
		}
	}
	return nil
}

// ExprReporter prints each guard's evaluation errors on stderr as one line
// per expression, and again later only if more objects failed since.
type ExprReporter struct {
	guards   []*expr.Guard
	reported map[*expr.Guard]int
}

func NewExprReporter(guards []*expr.Guard) *ExprReporter {
	return &ExprReporter{guards: guards, reported: map[*expr.Guard]int{}}
}

// Report prints the line of every guard with failures not reported yet.
func (r *ExprReporter) Report(w io.Writer) { r.print(w, false) }

// ReportFirst prints the line of every guard that has failures and was never
// reported: a long watch says at once that an expression fails, and the
// count once more at its end.
func (r *ExprReporter) ReportFirst(w io.Writer) { r.print(w, true) }

func (r *ExprReporter) print(w io.Writer, firstOnly bool) {
	if r == nil {
		return
	}
	for _, g := range r.guards {
		n := g.Count()
		if n == 0 || n == r.reported[g] || (firstOnly && r.reported[g] > 0) {
			continue
		}
		r.reported[g] = n
		fmt.Fprintf(w, "warning: %v\n", g.Err())
	}
}

// OwnGuard returns a guard of g's program that counts its failures and
// cost-limit stop apart from g's, or nil for none: each target of a
// command reports its own (index.Own does the same for --indexer).
func OwnGuard(g *expr.Guard) *expr.Guard {
	if g == nil {
		return nil
	}
	return expr.NewGuard(g.Program())
}
