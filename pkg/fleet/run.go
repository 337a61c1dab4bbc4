package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// MaxParallel bounds how many contexts are worked on at once.
const MaxParallel = 16

// Result is how one context's work ended.
type Result[T any] struct {
	Context string
	Value   T
	// Err is the context's failure, nil if it answered.
	Err error
}

// ErrDeadline is the failure of a context whose work did not end within
// its deadline; the work's goroutine is abandoned, not waited for.
var ErrDeadline = errors.New("no answer before the deadline")

// Run calls fn for each context in names, at most MaxParallel at once, and
// returns their results in the order of names. Each call gets a context
// cancelled after deadline (and when ctx ends); a call that has not
// returned deadline plus a grace of a few seconds later is abandoned: its
// result is ErrDeadline (wrapped, naming the deadline) and Run does not
// wait for it, so no context can hang the caller. fn must not write to
// shared state except through its return value.
func Run[T any](ctx context.Context, names []string, deadline time.Duration, fn func(ctx context.Context, name string) (T, error)) []Result[T] {
	results := make([]Result[T], len(names))
	sem := make(chan struct{}, MaxParallel)
	var wg sync.WaitGroup
	for i, name := range names {
		results[i].Context = name
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i].Err = ctx.Err()
				return
			}
			defer func() { <-sem }()
			results[i].Value, results[i].Err = runOne(ctx, name, deadline, fn)
		}()
	}
	wg.Wait()
	return results
}

// grace is how long Run waits past a context's deadline for its work to
// notice the cancellation and return.
const grace = 5 * time.Second

func runOne[T any](ctx context.Context, name string, deadline time.Duration, fn func(ctx context.Context, name string) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				var zero T
				done <- outcome{zero, fmt.Errorf("panic: %v", r)}
			}
		}()
		v, err := fn(ctx, name)
		done <- outcome{v, err}
	}()
	timer := time.NewTimer(deadline + grace)
	defer timer.Stop()
	select {
	case o := <-done:
		return o.v, o.err
	case <-timer.C:
		var zero T
		return zero, fmt.Errorf("%w (%s)", ErrDeadline, deadline)
	}
}

// Failed returns the results that failed, in order.
func Failed[T any](results []Result[T]) []Result[T] {
	var failed []Result[T]
	for _, r := range results {
		if r.Err != nil {
			failed = append(failed, r)
		}
	}
	return failed
}

// PartialError is a command's error when some contexts failed: each has
// been named on stderr with its reason, and the command answered for the
// others; the process exits 1.
type PartialError struct {
	Failed, Total int
}

func (e *PartialError) Error() string {
	if e.Failed == e.Total {
		return fmt.Sprintf("every context failed (%d of %d, named above)", e.Failed, e.Total)
	}
	return fmt.Sprintf("%d of %d contexts failed (named above); the others were answered", e.Failed, e.Total)
}
