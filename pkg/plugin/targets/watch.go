package targets

import (
	"bytes"
	"context"
	"io"
	"sync"
)

// Watching is the progress of targets whose work runs until the command
// ends (watches): Progress, and Above, which writes whole lines above the
// progress on the terminal it is drawn on.
type Watching interface {
	Progress
	// Above runs write, which writes whole lines.
	Above(write func())
}

// Watch runs watch for each target of set in parallel (Run, without a
// deadline) and returns once every call has returned, their progress on
// p (whose End is the caller's). A target's diagnostics go to the errOut
// watch gets: the command's errOut for a set of one; for one of several,
// a writer of its own that writes its whole lines as they come, each
// naming the context ("context NAME: "), under mu and above p. With one
// target its error is the command's. With several, each failed context is
// named once on errOut as it fails (Failures, under mu and above p), and
// the error is a *PartialError when any failed.
func Watch(ctx context.Context, set Set, p Watching, mu *sync.Mutex, errOut io.Writer, watch func(ctx context.Context, t Target, errOut io.Writer) error) error {
	failures := set.Failures(errOut).writing(mu, p.Above)
	results := Run(ctx, set.Targets, 0, func(ctx context.Context, t Target) (struct{}, error) {
		if !set.Several {
			err := watch(p.Begin(ctx, t.Name), t, errOut)
			p.Done(t.Name, err)
			return struct{}{}, err
		}
		stderr := &LinePrefixer{Mu: mu, W: errOut, Prefix: func(line []byte) []byte {
			return append([]byte("context "+t.Name+": "), line...)
		}, Above: p.Above}
		err := watch(p.Begin(ctx, t.Name), t, stderr)
		stderr.Flush()
		p.Done(t.Name, err)
		if err != nil {
			failures.Add(t.Name, err)
		}
		return struct{}{}, err
	})
	if !set.Several && len(results) == 1 {
		return results[0].Err
	}
	return failures.Err()
}

// LinePrefixer writes whole lines to W, each changed by Prefix when set;
// the whole lines of one Write go out together under Mu (shared by the
// targets' writers), so that what a target's printer writes at once (an
// event, a YAML document) is not interleaved with another target's lines.
// An unfinished line waits for its end or for Flush.
type LinePrefixer struct {
	Mu     *sync.Mutex
	W      io.Writer
	Prefix func([]byte) []byte
	// Above, if set, runs each write (Watching.Above).
	Above func(write func())
	buf   []byte
}

func (l *LinePrefixer) Write(b []byte) (int, error) {
	l.buf = append(l.buf, b...)
	end := bytes.LastIndexByte(l.buf, '\n')
	if end < 0 {
		return len(b), nil
	}
	var out []byte
	for _, line := range bytes.SplitAfter(l.buf[:end+1], []byte("\n")) {
		if len(line) > 0 {
			if l.Prefix != nil {
				line = append(l.Prefix(line[:len(line)-1]), '\n')
			}
			out = append(out, line...)
		}
	}
	l.buf = append(l.buf[:0], l.buf[end+1:]...)
	var err error
	write := func() { _, err = l.W.Write(out) }
	l.Mu.Lock()
	if l.Above != nil {
		l.Above(write)
	} else {
		write()
	}
	l.Mu.Unlock()
	return len(b), err
}

// Flush writes an unfinished last line.
func (l *LinePrefixer) Flush() {
	if len(l.buf) > 0 {
		l.Write([]byte("\n"))
	}
}
