package server

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// recordQueueLimit bounds the events waiting for the recorder's writer.
const recordQueueLimit = 20000

// recEvent is one change a recorded source saw, as its informer's handler
// hands it over.
type recEvent struct {
	src  *recSource
	typ  watch.EventType
	obj  interface{}
	time time.Time
}

// recQueue hands events from informer handlers to the recorder's one
// writer goroutine. push never blocks: beyond limit pending events it drops
// the event and marks the queue overflowed, and the writer then starts a
// new segment from the informers' current state (see Recorder), so what
// is lost is the intermediate states of the dropped events, never the
// state itself.
type recQueue struct {
	limit int
	// ready gets a token when events are pending.
	ready chan struct{}

	mu         sync.Mutex
	items      []recEvent
	overflowed bool
	dropped    int64
}

func newRecQueue(limit int) *recQueue {
	return &recQueue{limit: limit, ready: make(chan struct{}, 1)}
}

func (q *recQueue) push(ev recEvent) {
	q.mu.Lock()
	if len(q.items) >= q.limit {
		q.overflowed = true
		q.dropped++
	} else {
		q.items = append(q.items, ev)
	}
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take returns the pending events and whether some were dropped since the
// last take, and empties the queue.
func (q *recQueue) take() (items []recEvent, overflowed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items, overflowed = q.items, q.overflowed
	q.items, q.overflowed = nil, false
	return items, overflowed
}

// stats returns how many events are pending and how many were dropped.
func (q *recQueue) stats() (pending int, dropped int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items), q.dropped
}
