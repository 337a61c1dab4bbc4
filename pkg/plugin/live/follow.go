package live

import (
	"context"
	"os"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
)

// Follow calls draw at once, then again as changed is sent on, paced,
// until ctx ends or done is closed. On a screen (not nil) draws are at least a
// quarter second apart (more for answers that take long to compute), come
// every second when nothing changed, so that ages move on, and at once
// when the terminal is resized; the last frame is left on the screen, the
// cursor below it. Off a screen they are at least gap apart and come only
// on a change. It returns draw's first error.
func Follow(ctx context.Context, done <-chan struct{}, changed <-chan struct{}, screen *Screen, gap time.Duration, draw func() error) error {
	p := newPacer(gap, time.Hour)
	resized := make(chan os.Signal, 1)
	if screen != nil {
		p = newPacer(minRedrawGap, minIdleRedraw)
		cmdutil.NotifyResize(resized)
		defer cmdutil.StopResize(resized)
		defer screen.end()
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-done:
			return nil
		case <-changed:
			p.dirty = true
		case <-resized:
			p.dirty, p.last = true, time.Time{}
		case <-timer.C:
		}
		due, wait := p.next(time.Now())
		if due {
			began := time.Now()
			if err := draw(); err != nil {
				return err
			}
			p.drawn(time.Now(), time.Since(began))
			_, wait = p.next(time.Now())
		}
		timer.Reset(wait)
	}
}
