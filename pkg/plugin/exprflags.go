package plugin

import (
	"fmt"
	"io"

	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// This file holds what query and watch share about CEL expressions: --filter,
// --until, and computed indexes (--indexer NAME=CEL).

// filterFlagUsage is the help of --filter, on query and watch.
const filterFlagUsage = "Keep only objects for which the CEL expression is true, e.g. --filter 'object.status.containerStatuses.exists(s, s.restartCount > 3)'. " +
	"It sees object (the object as the API returns it) and now (a timestamp). Applied after --index/--where; an evaluation error counts as false and is reported once on stderr."

// compilePredicate compiles the bool expression given to flag; "" gives nil.
// Errors name the flag and the position, "--filter: 1:8: ...".
func compilePredicate(flag, src string) (*expr.Guard, error) {
	if src == "" {
		return nil, nil
	}
	prg, err := expr.Compile(flag, src, expr.Predicate)
	if err != nil {
		return nil, err
	}
	return expr.NewGuard(prg), nil
}

// exprGuards returns the guards of guard (if not nil) and of every computed
// index in defs, each once.
func exprGuards(defs []index.Definition, guards ...*expr.Guard) []*expr.Guard {
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

// exprFatal returns the first guard's error that ends the command: an
// expression that hit CEL's cost limit.
func exprFatal(guards []*expr.Guard) error {
	for _, g := range guards {
		if err := g.Fatal(); err != nil {
			return err
		}
	}
	return nil
}

// exprReporter prints each guard's evaluation errors on stderr as one line
// per expression, and again later only if more objects failed since.
type exprReporter struct {
	guards   []*expr.Guard
	reported map[*expr.Guard]int
}

func newExprReporter(guards []*expr.Guard) *exprReporter {
	return &exprReporter{guards: guards, reported: map[*expr.Guard]int{}}
}

// report prints the line of every guard with failures not reported yet.
func (r *exprReporter) report(w io.Writer) { r.print(w, false) }

// reportFirst prints the line of every guard that has failures and was never
// reported: a long watch says at once that an expression fails, and the
// count once more at its end.
func (r *exprReporter) reportFirst(w io.Writer) { r.print(w, true) }

func (r *exprReporter) print(w io.Writer, firstOnly bool) {
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
