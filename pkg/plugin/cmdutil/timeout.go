package cmdutil

import "time"

// WithinTimeout returns what f returns, and true, when f returns within d;
// otherwise the zero T and false, and f runs on, its result dropped: for
// calls that cannot be cancelled (discovery that does not answer, files
// that read slowly) and must not hold a command or a shell waiting.
func WithinTimeout[T any](d time.Duration, f func() T) (T, bool) {
	done := make(chan T, 1)
	go func() { done <- f() }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case v := <-done:
		return v, true
	case <-timer.C:
		var zero T
		return zero, false
	}
}
