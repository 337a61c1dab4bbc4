package expr

import (
	"fmt"
	"sync"
)

// Failures counts the objects on which an expression failed to evaluate, so
// that the caller reports them once, on one line, instead of once per object.
// The zero value is not usable: make one with NewFailures. It is safe for
// concurrent use.
type Failures struct {
	flag    string
	outcome string

	mu       sync.Mutex
	n        int
	firstKey string
	first    error
}

// NewFailures returns a counter for the expression given to flag, of the
// given kind; the kind decides what its line says happened to the objects
// ("counted as false" for a predicate, "left out of the index" for a value).
func NewFailures(flag string, kind Kind) *Failures {
	outcome := "counted as false"
	if kind == Value {
		outcome = "left out of the index"
	}
	return &Failures{flag: flag, outcome: outcome}
}

// Add counts one failure on the object with storage key key (ns/name).
func (f *Failures) Add(key string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.first == nil {
		f.firstKey, f.first = key, err
	}
}

// Count returns how many failures were added.
func (f *Failures) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// Err returns nil if nothing failed, or an error whose text is the one line to
// print on stderr:
//
//	--filter: 3 objects counted as false after an evaluation error; first, on default/web-1: no such key: limits
func (f *Failures) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return nil
	}
	noun := "objects"
	if f.n == 1 {
		noun = "object"
	}
	first := f.first
	if ee, ok := first.(*EvalError); ok {
		first = ee.Err // the flag is already at the start of the line
	}
	return fmt.Errorf("%s: %d %s %s after an evaluation error; first, on %s: %w", f.flag, f.n, noun, f.outcome, f.firstKey, first)
}
