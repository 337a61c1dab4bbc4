package targets

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress shows the work of each target while it runs. Its methods are
// called from the targets' goroutines.
type Progress interface {
	// Begin returns the context target name's work runs in (carrying the
	// progress callback of its engines).
	Begin(ctx context.Context, name string) context.Context
	// Done records how target name's work ended.
	Done(name string, err error)
	// End erases the progress, before the answers are printed.
	End()
}

// Answer runs answer for each target of set (Run, each under deadline),
// shows their progress on p (nil: none), and returns their results in
// the order of the targets. A target writes its diagnostics to the errOut
// answer gets: the command's errOut itself when set is one target, and,
// for one of several, a buffer of its own that Answers flushes once every
// target is answered, each line naming the context.
func Answer[T any](ctx context.Context, set Set, p Progress, deadline time.Duration, errOut io.Writer, answer func(ctx context.Context, t Target, errOut io.Writer) (T, error)) []Result[T] {
	// One of several targets writes to a buffer of its own; the map is
	// only read while the targets run.
	stderr := map[string]*Buffer{}
	for _, t := range set.Targets {
		if set.Several {
			stderr[t.Name] = &Buffer{}
		}
	}
	results := Run(ctx, set.Targets, deadline, func(ctx context.Context, t Target) (T, error) {
		w := errOut
		if b := stderr[t.Name]; b != nil {
			w = b
		}
		if p != nil {
			ctx = p.Begin(ctx, t.Name)
		}
		v, err := answer(ctx, t, w)
		if p != nil {
			p.Done(t.Name, err)
		}
		return v, err
	})
	if p != nil {
		p.End()
	}
	for i := range results {
		results[i].stderr = stderr[results[i].Target.Name]
	}
	return results
}

// Answers sorts out the results of set's targets (Answer): each target's
// buffered stderr is written to errOut, its lines naming the context.
// With one target (not set.Several) its error is the command's error,
// returned as it is. With several, each failed context is named once in
// failures, which the command's error is made of (Failures.Err) once the
// others' answers are printed; answers are the values of the targets that
// answered, in order.
func Answers[T any](set Set, results []Result[T], errOut io.Writer) (answers []T, failures *Failures, err error) {
	failures = set.Failures(errOut)
	for _, r := range results {
		r.stderr.FlushPrefixed(errOut, r.Target.Name)
		switch {
		case r.Err != nil && !set.Several:
			return nil, nil, r.Err
		case r.Err != nil:
			failures.Add(r.Target.Name, r.Err)
		default:
			answers = append(answers, r.Value)
		}
	}
	return answers, failures, nil
}

// Buffer keeps what one of several targets writes, for its lines to be
// written once, naming its context (FlushPrefixed). It is safe for
// concurrent use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// FlushPrefixed writes to w what b holds, each line prefixed with
// "context NAME: ", and empties b. A nil b holds nothing.
func (b *Buffer) FlushPrefixed(w io.Writer, name string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	text := b.buf.String()
	b.buf.Reset()
	b.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if line != "" {
			fmt.Fprintf(w, "context %s: %s\n", name, line)
		}
	}
}
