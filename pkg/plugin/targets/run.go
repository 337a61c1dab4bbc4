package targets

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
)

// MaxParallel bounds how many targets are worked on at once.
const MaxParallel = 16

// Result is how the work of one target ended.
type Result[T any] struct {
	Target Target
	Value  T
	// Err is the target's failure, nil if it answered.
	Err error
	// stderr is what the target wrote, kept for Answers (Answer).
	stderr *Buffer
}

// ErrDeadline is the failure of a target whose work did not end within its
// deadline.
var ErrDeadline = errors.New("no answer before the deadline")

// Run calls fn for each target, at most MaxParallel at once, and returns
// their results in the order of targets. Each call gets a context that is
// cancelled when ctx ends and, if deadline is positive, after deadline; a
// call that ends after its deadline passed fails with ErrDeadline (wrapped,
// naming the deadline). Run returns only once every call has returned: no
// goroutine of it outlives it. One target's failure does not cancel the
// others. A panic in fn is that target's error. fn must not write to
// shared state except through its return value.
func Run[T any](ctx context.Context, targets []Target, deadline time.Duration, fn func(ctx context.Context, t Target) (T, error)) []Result[T] {
	results := make([]Result[T], len(targets))
	var g errgroup.Group
	g.SetLimit(MaxParallel)
	for i, t := range targets {
		results[i].Target = t
		if ctx.Err() != nil {
			results[i].Err = ctx.Err()
			continue
		}
		g.Go(func() error {
			results[i].Value, results[i].Err = runOne(ctx, t, deadline, fn)
			return nil
		})
	}
	_ = g.Wait()
	return results
}

// runOne runs fn for t under its deadline, turning a panic into an error.
func runOne[T any](ctx context.Context, t Target, deadline time.Duration, fn func(ctx context.Context, t Target) (T, error)) (v T, err error) {
	if ctx.Err() != nil {
		return v, ctx.Err()
	}
	if deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, deadline)
		defer cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, fmt.Errorf("panic: %v", r)
		}
	}()
	v, err = fn(ctx, t)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%w (%s): %w", ErrDeadline, deadline, err)
	}
	return v, err
}

// PartialError is a command's error when some of several targets failed:
// each has been named on stderr with its reason, and the command answered
// for the others; the process exits 1.
type PartialError struct {
	Failed, Total int
}

func (e *PartialError) Error() string {
	if e.Failed == e.Total {
		return fmt.Sprintf("every context failed (%d of %d, named above)", e.Failed, e.Total)
	}
	return fmt.Sprintf("%d of %d contexts failed (named above); the others were answered", e.Failed, e.Total)
}
