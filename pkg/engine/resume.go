package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

// A synced informer's watch that cannot reach its API server is retried
// here, every rewatchMinDelay growing to rewatchMaxDelay, instead of being
// handed back to client-go's reflector. The reflector shares one
// exponential backoff (up to 30 s, doubled by jitter) between its re-watch
// attempts and its relists: every refused attempt of an outage grows it,
// and when the restarted API server answers the resumed watch with "too
// old resource version" (its watch cache starts afresh), the relist that
// follows waits that grown delay, up to a minute in which the informer sees
// nothing of what changes. Retried here, an outage leaves the backoff where
// it was and the relist follows within a second or two.
const (
	rewatchMinDelay = 250 * time.Millisecond
	rewatchMaxDelay = 2 * time.Second
)

// resumeQuiet is how long a re-watch after an outage must stay open
// without an error before the watch counts as resumed: a server that
// cannot resume from the requested resourceVersion says so at once, with
// an ERROR event.
const resumeQuiet = time.Second

// retriesOutage reports whether a watch request's error means the API
// server cannot be reached or cannot serve yet (starting, overloaded), so
// that the same request will work once it can.
func retriesOutage(err error) bool {
	return isConnectionError(err) ||
		apierrors.IsTooManyRequests(err) ||
		apierrors.IsServiceUnavailable(err) ||
		apierrors.IsInternalError(err) ||
		apierrors.IsTimeout(err) ||
		apierrors.IsServerTimeout(err)
}

// watchThroughOutages sends a watch request of the informer key with start
// and returns its stream. Once the informer has synced, a request that
// fails because the server is down (retriesOutage) is sent again, after a
// delay growing from rewatchMinDelay to rewatchMaxDelay, until it gets an
// answer or ctx ends; each failure still reaches OnWatchError through the
// transport. Before sync, and for any other error, the error is returned
// as it is, for the engine's fail-fast rules and the reflector's own
// handling.
//
// While a type of key is failing, the stream returned tells when the watch
// has really resumed (see resumeWatch).
func (e *Engine) watchThroughOutages(ctx context.Context, key informerKey, opts metav1.ListOptions, start func(context.Context) (watch.Interface, error)) (watch.Interface, error) {
	delay := rewatchMinDelay
	for {
		w, err := start(ctx)
		if err == nil {
			if types := e.failingTypes(key); len(types) > 0 {
				return e.resumeWatch(w, types, opts), nil
			}
			return w, nil
		}
		if !e.informerSynced(key) || !retriesOutage(err) || ctx.Err() != nil {
			return nil, err
		}
		if isStatusError(err) {
			// The transport reports only requests that got no
			// answer; the server's own refusal is reported here.
			for _, t := range e.typesOf(key) {
				e.watchFailed(t, err)
			}
		}
		klog.V(4).InfoS("watch request failed; sending it again", "resource", key.gvr.String(), "namespace", key.namespace, "delay", delay, "err", err)
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, err
		case <-timer.C:
		}
		delay = min(2*delay, rewatchMaxDelay)
	}
}

// informerSynced reports whether the informer of key has synced.
func (e *Engine) informerSynced(key informerKey) bool {
	informer, ok := e.informers[key]
	return ok && informer.HasSynced()
}

// typesOf returns the engine's types fed by the informer of key.
func (e *Engine) typesOf(key informerKey) []*Type {
	var types []*Type
	for _, t := range e.types {
		if t.Mapping.Resource == key.gvr {
			types = append(types, t)
		}
	}
	return types
}

// isStatusError reports whether err is the API server's answer.
func isStatusError(err error) bool {
	var status apierrors.APIStatus
	return errors.As(err, &status)
}

// failingTypes returns the engine's types fed by the informer of key whose
// watch has failed since it last resumed.
func (e *Engine) failingTypes(key informerKey) []*Type {
	var failing []*Type
	for _, t := range e.typesOf(key) {
		if t.failing.Load() {
			failing = append(failing, t)
		}
	}
	return failing
}

// resumed marks t's watch as working again and calls OnWatchResumed, once
// per outage.
func (e *Engine) resumed(t *Type) {
	if t.failing.CompareAndSwap(true, false) && e.cfg.OnWatchResumed != nil {
		e.cfg.OnWatchResumed(t)
	}
}

// resumeWatch returns w's events as they come, and declares types resumed
// when the stream shows that the informer is live again: a watch that
// sends the initial list (the reflector's relist) once the list has ended
// (the initial-events-end bookmark); a watch from the informer's
// resourceVersion once it sends an event that is not an error, or stays
// open resumeQuiet without one. An ERROR first ("too old resource
// version") resumes nothing: the reflector relists, and that relist's
// watch or list resumes. Its goroutine ends when w's stream ends or Stop
// is called.
func (e *Engine) resumeWatch(w watch.Interface, types []*Type, opts metav1.ListOptions) watch.Interface {
	r := &resumingWatch{inner: w, out: make(chan watch.Event), stopped: make(chan struct{})}
	initialList := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	go r.run(initialList, func() {
		for _, t := range types {
			e.resumed(t)
		}
	})
	return r
}

// resumingWatch is the stream resumeWatch returns.
type resumingWatch struct {
	inner    watch.Interface
	out      chan watch.Event
	stopped  chan struct{}
	stopOnce sync.Once
}

func (r *resumingWatch) ResultChan() <-chan watch.Event { return r.out }

func (r *resumingWatch) Stop() {
	r.stopOnce.Do(func() { close(r.stopped) })
	r.inner.Stop()
}

func (r *resumingWatch) run(initialList bool, resumed func()) {
	defer close(r.out)
	var quiet <-chan time.Time
	if !initialList {
		timer := time.NewTimer(resumeQuiet)
		defer timer.Stop()
		quiet = timer.C
	}
	decided := false
	decide := func(live bool) {
		if !decided {
			decided = true
			quiet = nil
			if live {
				resumed()
			}
		}
	}
	in := r.inner.ResultChan()
	for {
		select {
		case ev, ok := <-in:
			if !ok {
				return
			}
			switch {
			case decided:
			case ev.Type == watch.Error:
				decide(false)
			case !initialList || isInitialEventsEnd(ev):
				decide(true)
			}
			select {
			case r.out <- ev:
			case <-r.stopped:
				return
			}
		case <-quiet:
			decide(true)
		case <-r.stopped:
			return
		}
	}
}

// isInitialEventsEnd reports whether ev is the bookmark that ends the
// initial list of a watch that sends one.
func isInitialEventsEnd(ev watch.Event) bool {
	if ev.Type != watch.Bookmark {
		return false
	}
	obj, err := meta.Accessor(ev.Object)
	return err == nil && obj.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}
