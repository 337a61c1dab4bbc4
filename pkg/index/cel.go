package index

import (
	"context"
	"slices"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
)

// A computed index is a custom index whose expression is CEL rather than JSONPath (told apart by
// expr.IsCEL): --indexer restarts='object.status.containerStatuses.map(s, s.restartCount).sum()'.

// compileCEL compiles the CEL expression of custom index c into its Definition. Compile errors
// name the flag and the index, "--indexer restarts: 1:8: ...".
func compileCEL(c Custom) (Definition, error) {
	prg, err := expr.Compile(indexerFlag+" "+c.Name, c.JSONPath, expr.Value)
	if err != nil {
		return Definition{}, err
	}
	guard := expr.NewGuard(prg)
	return Definition{
		Name:        c.Name,
		Description: "custom CEL " + c.JSONPath,
		Func:        celIndexFunc(guard),
		Expr:        guard,
	}, nil
}

// celIndexFunc returns the IndexFunc of a computed index: the values of the expression on the
// object (unwrapped from a tombstone) at the time of indexing, in expr's canonical form, without
// duplicates. An evaluation error gives no value and is counted by guard, which also stops
// evaluating after the cost limit is hit once; the function never returns an error, which would
// make client-go panic.
func celIndexFunc(guard *expr.Guard) func(obj interface{}) ([]string, error) {
	return func(obj interface{}) ([]string, error) {
		obj = Unwrap(obj)
		if obj == nil {
			return nil, nil
		}
		values := guard.Values(context.Background(), obj, time.Now())
		var unique []string
		var seen map[string]struct{}
		for _, v := range values {
			unique, seen = appendUniqueValue(unique, seen, v)
		}
		return unique, nil
	}
}

// Own returns defs with each computed (CEL) index given a guard of its
// own: the same program, with its failures and its cost-limit stop counted
// apart from those of every other copy. A command that answers several
// targets gives each target its own, so that one context's failures are
// neither counted nor reported as another's.
func Own(defs []Definition) []Definition {
	out := slices.Clone(defs)
	for i, def := range out {
		if def.Expr != nil {
			guard := expr.NewGuard(def.Expr.Program())
			out[i].Expr, out[i].Func = guard, celIndexFunc(guard)
		}
	}
	return out
}
