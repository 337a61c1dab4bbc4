package offline

import (
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
)

// feedWatch is one open watch of a feed. Apply hands it changes under the
// source's lock and never waits: they queue until the watch's goroutine
// delivers them on the result channel, in order.
type feedWatch struct {
	feed *feed
	sel  selection

	result chan watch.Event

	mu      sync.Mutex
	cond    *sync.Cond
	pending []watch.Event
	stopped bool
	done    chan struct{}
}

func newFeedWatch(f *feed, sel selection) *feedWatch {
	w := &feedWatch{feed: f, sel: sel, result: make(chan watch.Event), done: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// offer queues the event c means to this watch, if any: an object entering
// the selection is ADDED, one leaving it DELETED. The caller holds the
// source's lock.
func (w *feedWatch) offer(c change) {
	if c.gk != w.sel.gk {
		return
	}
	was, is := w.sel.matches(c.old), w.sel.matches(c.new)
	t := c.t
	var e *entry
	switch {
	case c.t == watch.Deleted:
		if !was {
			return
		}
		e = c.new
	case was && is:
		e = c.new
	case is:
		t, e = watch.Added, c.new
	case was:
		// It left the selection: its new state, as a delete.
		t, e = watch.Deleted, c.new
	default:
		return
	}
	obj, err := w.feed.output(e)
	if err != nil {
		status := apierrors.NewInternalError(err).Status()
		obj, t = &status, watch.Error
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.pending = append(w.pending, watch.Event{Type: t, Object: obj})
	w.feed.source.offered.Add(counted(t))
	w.cond.Signal()
}

// counted is 1 for the event types Source.Offered counts, else 0.
func counted(t watch.EventType) int64 {
	switch t {
	case watch.Added, watch.Modified, watch.Deleted:
		return 1
	}
	return 0
}

// run delivers the pending events until the watch is stopped, then closes
// the result channel.
func (w *feedWatch) run() {
	defer close(w.result)
	for {
		w.mu.Lock()
		for len(w.pending) == 0 && !w.stopped {
			w.cond.Wait()
		}
		if w.stopped {
			w.mu.Unlock()
			return
		}
		ev := w.pending[0]
		w.pending[0] = watch.Event{}
		w.pending = w.pending[1:]
		w.mu.Unlock()
		select {
		case w.result <- ev:
		case <-w.done:
			w.feed.source.offered.Add(-counted(ev.Type))
			return
		}
	}
}

// Stop ends the watch; its result channel closes.
func (w *feedWatch) Stop() {
	w.feed.source.mu.Lock()
	delete(w.feed.source.watches, w)
	w.feed.source.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.stopped = true
		for _, ev := range w.pending {
			w.feed.source.offered.Add(-counted(ev.Type))
		}
		w.pending = nil
		close(w.done)
		w.cond.Broadcast()
	}
}

// ResultChan returns the watch's events.
func (w *feedWatch) ResultChan() <-chan watch.Event { return w.result }
