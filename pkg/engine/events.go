package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// EventType is what happened to an object.
type EventType string

// Event types, named as the API server names them in watch events.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
)

// Event is one change the cache saw.
type Event struct {
	Type EventType
	// Resource is the resource type whose cache saw the change.
	Resource *Type
	// Old is the object before the change (Modified, Deleted); New is the
	// object after it (Added, Modified). Both are the cache's own objects:
	// do not mutate them.
	Old, New interface{}
	// Key is the storage key, "namespace/name" or "name".
	Key string
	// Initial marks an Added event from the initial list.
	Initial bool
	// FinalStateUnknown marks a delete the informer inferred after a relist;
	// Old is then the last state the cache knew.
	FinalStateUnknown bool
	// Coalesced counts the further updates merged into this event while the
	// consumer was behind; Old is still the state before the first of them.
	Coalesced int
	// Related is set on a Modified event that no change of the object itself
	// caused: the relation index values (node.label:KEY, ...) of the
	// object that a change of a related object, named by Cause ("node/n1"),
	// changed. Old and New are then the same object. Such events are never
	// merged with others.
	Related []index.Change
	// Cause names the related object of a Related event, as KIND/NAME.
	Cause string
}

// Object returns the event's current object: New, or Old for deletes.
func (e *Event) Object() interface{} {
	if e.New != nil {
		return e.New
	}
	return e.Old
}

// Queue hands events from informer handlers to one consumer. Push and Close
// are safe for concurrent use; Pop is for one consumer goroutine. Push never
// blocks, so a slow consumer never stalls an informer.
//
// Memory bound: while at most limit events are pending, every event is kept
// as it came. Beyond that, an update to an object that already has a pending
// Added or Modified event is merged into it (Old kept, New replaced,
// Coalesced incremented), so pending updates are bounded by the number of
// objects in the cache, which is already held in memory; adds and deletes are
// never merged or dropped. Events for one object leave the queue in the order
// they came.
type Queue struct {
	limit int

	mu        sync.Mutex
	cond      *sync.Cond
	items     []*Event
	head      int
	mergeable map[string]*Event
	closed    bool

	coalesced int64
}

// NewQueue returns a queue that starts coalescing updates beyond limit
// pending events.
func NewQueue(limit int) *Queue {
	q := &Queue{limit: limit, mergeable: map[string]*Event{}}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Push adds an event; it never blocks.
func (q *Queue) Push(e *Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	if e.Related != nil {
		q.items = append(q.items, e)
		q.cond.Signal()
		return
	}
	mkey := mergeKey(e)
	if e.Type == Modified && len(q.items)-q.head >= q.limit {
		if pending, ok := q.mergeable[mkey]; ok {
			pending.New = e.New
			pending.Coalesced++
			q.coalesced++
			return
		}
	}
	q.items = append(q.items, e)
	if e.Type == Deleted {
		delete(q.mergeable, mkey)
	} else {
		q.mergeable[mkey] = e
	}
	q.cond.Signal()
}

// Pop waits for the next event. It returns false when the queue is closed
// and drained, or when ctx ends.
func (q *Queue) Pop(ctx context.Context) (*Event, bool) {
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.items) {
		if q.closed || ctx.Err() != nil {
			return nil, false
		}
		q.cond.Wait()
	}
	e := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 1024 && q.head*2 > len(q.items) {
		q.items, q.head = append(q.items[:0:0], q.items[q.head:]...), 0
	}
	mkey := mergeKey(e)
	if q.mergeable[mkey] == e {
		delete(q.mergeable, mkey)
	}
	return e, true
}

// mergeKey says which pending event an update may merge into: the same
// object of the same resource type.
func mergeKey(e *Event) string { return e.Resource.Name() + "|" + e.Key }

// Close wakes the consumer; Pop drains what is pending and then returns false.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// Stats returns how many events are pending and how many updates have been
// coalesced so far.
func (q *Queue) Stats() (pending int, coalesced int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) - q.head, q.coalesced
}

// SendEvents registers handlers on every type that push its events to q.
// Call it before Start. The handlers run on the informers' goroutines and
// never block; q receives each object's events in the order its informer
// saw them, the initial list first, sorted by storage key (the order of the
// API server's list: a streaming initial list reaches handlers in the order
// of a map) and held until the informer has handed over the whole list or
// a later event comes, as Type.SendEvents does. Resync updates (same
// resourceVersion) are skipped.
func (e *Engine) SendEvents(q *Queue) error {
	for _, t := range e.types {
		for _, informer := range t.Informers {
			r := &initialReplay{q: q, stopped: e.stop}
			reg, err := sendEvents(t, informer, r.push)
			if err != nil {
				return err
			}
			go r.flushWhenSynced(reg)
		}
	}
	return nil
}

// SendEvents registers on t's informers, which may be running already, the
// handlers Engine.SendEvents registers, and returns a func that removes
// them. On a running informer client-go first hands the new handlers every
// cached object as an Added event with Initial set, before any later
// change, but in the order of its store's map; SendEvents holds those back
// and pushes them sorted by storage key (the order of the API server's
// list) once client-go has handed over the last, or when the first later
// event comes: a watch that joins a warm cache sees the same sequence as
// one that started the informer. remove may be called once. A view (see
// Restrict) sends the events of its objects only.
func (t *Type) SendEvents(q *Queue) (remove func(), err error) {
	remove, _, err = t.SendEventsListed(q)
	return remove, err
}

// SendEventsListed is SendEvents that also returns a channel closed once
// the initial Added events of every informer of t are in q: the events in
// q then, and any later, follow the initial list.
func (t *Type) SendEventsListed(q *Queue) (remove func(), listed <-chan struct{}, err error) {
	var regs []toolscache.ResourceEventHandlerRegistration
	var replays []*initialReplay
	remove = func() {
		for _, r := range replays {
			r.stop()
		}
		for i, reg := range regs {
			_ = t.Informers[i].RemoveEventHandler(reg)
		}
	}
	for _, informer := range t.Informers {
		r := &initialReplay{q: q, stopped: make(chan struct{}), done: make(chan struct{})}
		push := r.push
		if t.view != nil {
			push = t.view.events(t, push)
		}
		reg, err := sendEvents(t, informer, push)
		if err != nil {
			remove()
			return nil, nil, err
		}
		regs = append(regs, reg)
		replays = append(replays, r)
		go r.flushWhenSynced(reg)
	}
	all := make(chan struct{})
	go func() {
		for _, r := range replays {
			select {
			case <-r.done:
			case <-r.stopped:
				return
			}
		}
		close(all)
	}()
	return remove, all, nil
}

// initialReplay holds the initial Added events a handler gets, and pushes
// them to q sorted by storage key. stopped ends its wait for the handler's
// sync: stop closes it, or its owner (an engine's stop channel) does.
type initialReplay struct {
	q        *Queue
	mu       sync.Mutex
	pending  []*Event
	flushed  bool
	stopOnce sync.Once
	stopped  chan struct{}
	// done, when set, is closed once the initial events are in q.
	done chan struct{}
}

func (r *initialReplay) push(e *Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.flushed {
		if e.Initial {
			r.pending = append(r.pending, e)
			return
		}
		r.flushLocked()
	}
	r.q.Push(e)
}

func (r *initialReplay) flushLocked() {
	sort.SliceStable(r.pending, func(i, j int) bool { return r.pending[i].Key < r.pending[j].Key })
	for _, e := range r.pending {
		r.q.Push(e)
	}
	r.pending, r.flushed = nil, true
	if r.done != nil {
		close(r.done)
	}
}

// flushWhenSynced pushes the held events once the handler has been handed
// every cached object (reg.HasSynced), or returns when stopped.
func (r *initialReplay) flushWhenSynced(reg toolscache.ResourceEventHandlerRegistration) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-r.stopped:
			return
		case <-tick.C:
		}
		if reg.HasSynced() {
			r.mu.Lock()
			if !r.flushed {
				r.flushLocked()
			}
			r.mu.Unlock()
			return
		}
	}
}

func (r *initialReplay) stop() { r.stopOnce.Do(func() { close(r.stopped) }) }

// sendEvents registers on informer, one of t's, the handlers of SendEvents.
func sendEvents(t *Type, informer toolscache.SharedIndexInformer, push func(*Event)) (toolscache.ResourceEventHandlerRegistration, error) {
	reg, err := informer.AddEventHandler(toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj interface{}, isInInitialList bool) {
			push(&Event{Type: Added, Resource: t, New: obj, Key: storageKey(obj), Initial: isInInitialList})
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			if sameResourceVersion(oldObj, newObj) {
				return
			}
			push(&Event{Type: Modified, Resource: t, Old: oldObj, New: newObj, Key: storageKey(newObj)})
		},
		DeleteFunc: func(obj interface{}) {
			ev := &Event{Type: Deleted, Resource: t, Old: obj}
			if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				ev.Old = tombstone.Obj
				ev.Key = tombstone.Key
				ev.FinalStateUnknown = true
			} else {
				ev.Key = storageKey(obj)
				ev.FinalStateUnknown = takeFinalStateUnknown(obj)
			}
			push(ev)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("adding event handler to %s: %w", t.Name(), err)
	}
	return reg, nil
}

// storageKey is obj's storage key (see object.Key), "" for an object
// without metadata.
func storageKey(obj interface{}) string {
	key, err := object.Key(obj)
	if err != nil {
		return ""
	}
	return key
}

func sameResourceVersion(oldObj, newObj interface{}) bool {
	o, err1 := meta.Accessor(oldObj)
	n, err2 := meta.Accessor(newObj)
	return err1 == nil && err2 == nil && o.GetResourceVersion() == n.GetResourceVersion()
}

// finalStateUnknownAnnotation marks a deleted object that a feed reading
// another cache got as that cache's inferred delete (its final state
// unknown): a watch event cannot carry a client-go tombstone.
const finalStateUnknownAnnotation = "kubectl-informer.io/final-state-unknown"

// MarkFinalStateUnknown marks obj, the object of a DELETED watch event a
// feed sends, as a delete whose final state is unknown: the engine's
// event then says so (Event.FinalStateUnknown), as for its own informer's
// inferred deletes, and the mark is removed.
func MarkFinalStateUnknown(obj interface{}) {
	if m, err := meta.Accessor(obj); err == nil {
		annotations := m.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[finalStateUnknownAnnotation] = "true"
		m.SetAnnotations(annotations)
	}
}

// takeFinalStateUnknown reports whether obj carries the mark of
// MarkFinalStateUnknown, and removes it.
func takeFinalStateUnknown(obj interface{}) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	annotations := m.GetAnnotations()
	if _, ok := annotations[finalStateUnknownAnnotation]; !ok {
		return false
	}
	delete(annotations, finalStateUnknownAnnotation)
	if len(annotations) == 0 {
		annotations = nil
	}
	m.SetAnnotations(annotations)
	return true
}
