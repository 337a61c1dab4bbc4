package usage

import "context"

// Follow runs p until ctx is done and calls onSample with each Snapshot
// whose samples differ from the one before (the first included), and
// onError with each error of a reading that differs from the last one (a
// reading that fails after one that succeeded, or with other words). The
// calls are made one at a time, from Follow's goroutine. It returns once
// p's Run has returned.
func Follow(ctx context.Context, p *Poller, onSample func(*Snapshot), onError func(error)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.Run(ctx) // Run returns nil
	}()
	defer func() { <-done }()
	var last *Snapshot
	lastErr := ""
	for {
		changed := p.Changed()
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		s, err := p.Latest()
		switch {
		case err == nil:
			lastErr = ""
		case err.Error() != lastErr:
			lastErr = err.Error()
			onError(err)
		}
		if s != nil && (last == nil || !s.SameSamples(last)) {
			last = s
			onSample(s)
		}
	}
}
