package targets

import (
	"fmt"
	"io"
	"sync"
)

// Failures names the contexts of a set of several that failed, each once,
// on a command's stderr, and makes the command's error of them. Its
// methods are safe for concurrent use.
type Failures struct {
	errOut io.Writer
	// mu guards the writes to errOut; a command whose targets write to it
	// too shares theirs (writing).
	mu *sync.Mutex
	// above, when set, runs each write (a progress display drawn on the
	// terminal keeps the lines above it).
	above  func(write func())
	total  int
	failed int
}

// Failures returns the failures of s's command, writing to errOut: each
// context missing from the kubeconfig is named at once.
func (s Set) Failures(errOut io.Writer) *Failures {
	f := &Failures{errOut: errOut, mu: &sync.Mutex{}, total: s.Total()}
	for _, name := range s.Missing {
		f.Add(name, fmt.Errorf("not in the kubeconfig"))
	}
	return f
}

// writing makes f write under mu, through above when it is set.
func (f *Failures) writing(mu *sync.Mutex, above func(write func())) *Failures {
	f.mu, f.above = mu, above
	return f
}

// Add names context name as failed with err.
func (f *Failures) Add(name string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed++
	write := func() { fmt.Fprintf(f.errOut, "error: context %s: %v\n", name, err) }
	if f.above != nil {
		f.above(write)
		return
	}
	write()
}

// Count is how many contexts failed so far.
func (f *Failures) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// Err is the command's error: a *PartialError when a context failed, nil
// otherwise.
func (f *Failures) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed == 0 {
		return nil
	}
	return &PartialError{Failed: f.failed, Total: f.total}
}
