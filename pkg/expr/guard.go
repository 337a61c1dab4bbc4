package expr

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// Guard evaluates one Program for a command, over many objects and possibly
// many times over each (a watch re-evaluates on every update), and keeps what
// the command reports about it:
//
//   - the objects it failed to evaluate on, each object counted once however
//     often it failed ([Guard.Err], one line for all);
//   - whether an evaluation hit the cost limit. Such an expression spends the
//     whole budget on each object, far longer than an ordinary evaluation
//     (BenchmarkCostLimit measures it), so after the first the Guard
//     evaluates nothing more: Match returns false and
//     Values nil at once, and [Guard.Fatal] says why. The command should stop
//     with that error.
//
// A Guard is safe for concurrent use: index functions call it from several
// informers' goroutines.
type Guard struct {
	prg      *Program
	failures *Failures

	seen  sync.Map // storage keys of the objects already counted
	fatal atomic.Pointer[fatalError]
	usage UsageFunc // the objects' usage, for Match; nil for none
}

// fatalError is the cost-limit error of a Guard, with the object it happened on.
type fatalError struct {
	key string
	err *EvalError
}

// NewGuard returns a Guard of prg.
func NewGuard(prg *Program) *Guard {
	return &Guard{prg: prg, failures: NewFailures(prg.Flag(), prg.Kind())}
}

// Program returns the guarded program.
func (g *Guard) Program() *Program { return g.prg }

// Match is Program.Match, with the usage the Guard was given
// ([Guard.WithUsage]), that counts a failure as false.
func (g *Guard) Match(ctx context.Context, obj any, now time.Time) bool {
	if g.fatal.Load() != nil {
		return false
	}
	ok, err := g.prg.match(ctx, obj, now, g.usage)
	if err != nil {
		g.fail(obj, err)
		return false
	}
	return ok
}

// Values is Program.Values that counts a failure as no value.
func (g *Guard) Values(ctx context.Context, obj any, now time.Time) []string {
	if g.fatal.Load() != nil {
		return nil
	}
	vals, err := g.prg.Values(ctx, obj, now)
	if err != nil {
		g.fail(obj, err)
		return nil
	}
	return vals
}

func (g *Guard) fail(obj any, err error) {
	key := storageKey(obj)
	var ee *EvalError
	if errors.As(err, &ee) && ee.CostLimitExceeded() {
		g.fatal.CompareAndSwap(nil, &fatalError{key: key, err: ee})
	}
	if _, dup := g.seen.LoadOrStore(key, struct{}{}); !dup {
		g.failures.Add(key, err)
	}
}

// Err returns nil if every evaluation succeeded, or the one line to print
// on stderr about the objects the expression failed on (see [Failures.Err]).
func (g *Guard) Err() error { return g.failures.Err() }

// Count returns how many objects the expression failed on.
func (g *Guard) Count() int { return g.failures.Count() }

// Fatal returns nil, or, once an evaluation hit the cost limit, an error
// that names the flag, the object and the limit:
//
//	--filter: stopped: the expression exceeded CEL's cost limit on default/web-1 (each such evaluation takes about 0.3s); simplify it
func (g *Guard) Fatal() error {
	f := g.fatal.Load()
	if f == nil {
		return nil
	}
	return fmt.Errorf("%s: stopped: the expression exceeded CEL's cost limit on %s (each such evaluation takes about 0.3s); simplify it: %w",
		g.prg.Flag(), f.key, f.err.Err)
}

// storageKey names obj in messages: its storage key (see object.Key),
// or a description of obj when it has no metadata.
func storageKey(obj any) string {
	key, err := object.Key(obj)
	if err != nil {
		return fmt.Sprintf("a %T", obj)
	}
	return key
}
