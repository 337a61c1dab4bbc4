package engine

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// quietAfterCancel returns w as a reflector should see it when its context
// ends: once ctx is done, whatever w still sends (the decode error of a
// stream whose request was cancelled: "unable to decode an event from the
// watch stream: context canceled") is dropped, and the result channel
// stays open until Stop, so that the reflector sees only its context end
// and stops without logging a watch error. Before that, w's events pass
// as they are, its closing included.
func quietAfterCancel(ctx context.Context, w watch.Interface) watch.Interface {
	q := &quietWatch{ctx: ctx, in: w, out: make(chan watch.Event), stop: make(chan struct{})}
	go q.run()
	return q
}

type quietWatch struct {
	ctx  context.Context
	in   watch.Interface
	out  chan watch.Event
	stop chan struct{}
	once sync.Once
}

func (q *quietWatch) run() {
	defer close(q.out)
	for {
		select {
		case ev, ok := <-q.in.ResultChan():
			if !ok {
				if q.ctx.Err() != nil {
					<-q.stop
				}
				return
			}
			if q.ctx.Err() != nil {
				continue
			}
			select {
			case q.out <- ev:
			case <-q.stop:
				return
			}
		case <-q.stop:
			return
		}
	}
}

// ResultChan implements watch.Interface.
func (q *quietWatch) ResultChan() <-chan watch.Event { return q.out }

// Stop implements watch.Interface: it stops the wrapped watch and ends
// the result channel.
func (q *quietWatch) Stop() {
	q.once.Do(func() {
		close(q.stop)
		q.in.Stop()
	})
}
