package server

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// streamQueueLimit bounds the events a stream holds for a client that
// reads slower than they come; beyond it, updates of one object merge.
const streamQueueLimit = 10000

// StreamHandler returns the handler of Stream requests: the type's
// objects, leased from pool as the client's request may use them
// (AcquireFresh), then each change, written on stdout as
// protocol.StreamEvent lines, until the client goes away. The API
// server's warnings of the type (from warnings) and the cache's watch
// outages are events too, for the client to print as its own. Types are
// resolved through source's REST mapper.
func StreamHandler(pool *Pool, warnings *Warnings, source engine.Source) Handler {
	return func(ctx context.Context, req protocol.Request, stdout, _ io.Writer) Outcome {
		if req.Stream == nil {
			return Outcome{Exit: protocol.Exit{Code: 1, Error: "a stream request names a type"}}
		}
		return OutcomeOf(stream(ctx, pool, warnings, source.RESTMapper(), *req.Stream, stdout))
	}
}

// streamSender writes a stream's events; until open, it holds them, so
// that a stream the cache declines has written nothing.
type streamSender struct {
	mu   sync.Mutex
	out  io.Writer
	open bool
	held []heldEvent
	err  error
}

// heldEvent is an event held until the stream opens.
type heldEvent struct {
	ev     protocol.StreamEvent
	object []byte
}

func (s *streamSender) send(ev protocol.StreamEvent) error { return s.sendObject(ev, nil) }

// sendObject sends ev with its object's bytes.
func (s *streamSender) sendObject(ev protocol.StreamEvent, object []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.open {
		s.held = append(s.held, heldEvent{ev, object})
		return nil
	}
	if s.err == nil {
		s.err = protocol.WriteStreamRecord(s.out, ev, object)
	}
	return s.err
}

// start sends the held events, and every later one as it comes.
func (s *streamSender) start() error {
	s.mu.Lock()
	held := s.held
	s.open, s.held = true, nil
	s.mu.Unlock()
	for _, h := range held {
		if err := s.sendObject(h.ev, h.object); err != nil {
			return err
		}
	}
	return nil
}

// stream answers one Stream request (StreamHandler).
func stream(ctx context.Context, pool *Pool, warnings *Warnings, mapper meta.RESTMapper, sr protocol.StreamRequest, out io.Writer) error {
	mapping, err := streamMapping(mapper, sr)
	if err != nil {
		return err
	}
	s := &streamSender{out: out}
	sub := warnings.Subscribe([]schema.GroupVersionResource{mapping.Resource}, func(message string) {
		_ = s.send(protocol.StreamEvent{Type: protocol.StreamWarning, Message: message})
	})
	defer sub.Cancel()
	cfg := engine.Config{
		LabelSelector: sr.LabelSelector, FieldSelector: sr.FieldSelector,
		ManagedFields: engine.ManagedFields(sr.ManagedFields), RequireWatch: sr.RequireWatch,
		SyncTimeout: time.Duration(sr.SyncTimeout),
		OnWatchError: func(_ *engine.Type, err error) {
			_ = s.send(protocol.StreamEvent{Type: protocol.StreamFailed, Message: err.Error()})
		},
		OnWatchResumed: func(*engine.Type) { _ = s.send(protocol.StreamEvent{Type: protocol.StreamResumed}) },
	}
	if sr.Namespace != "" {
		cfg.Namespaces = []string{sr.Namespace}
	}
	lease, err := pool.AcquireFresh(ctx, []*meta.RESTMapping{mapping}, cfg, Options{}, time.Duration(sr.MaxStaleness))
	if err != nil {
		return err
	}
	defer lease.Shutdown()
	queue := engine.NewQueue(streamQueueLimit)
	remove, listed, err := lease.Types()[0].SendEventsListed(queue)
	if err != nil {
		return err
	}
	defer remove()
	sub.Release()
	if err := s.start(); err != nil {
		return nil // the client went away
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-lease.Failed():
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := sendEvents(ctx, s, &pool.encoded, queue, listed); err != nil {
		return nil // the client went away
	}
	return lease.Err()
}

// streamMapping returns the REST mapping a Stream names, through the
// cache's discovery, refreshed once for a type created since (a new CRD).
func streamMapping(mapper meta.RESTMapper, sr protocol.StreamRequest) (*meta.RESTMapping, error) {
	gk := schema.GroupKind{Group: sr.Group, Kind: sr.Kind}
	mapping, err := mapper.RESTMapping(gk, sr.Version)
	if err != nil {
		if r, ok := mapper.(meta.ResettableRESTMapper); ok {
			r.Reset()
			mapping, err = mapper.RESTMapping(gk, sr.Version)
		}
	}
	if err != nil {
		return nil, err
	}
	if mapping.Resource.Resource != sr.Resource {
		return nil, fmt.Errorf("the cache maps %s to %s, not %s", gk, mapping.Resource.Resource, sr.Resource)
	}
	return mapping, nil
}

// sendEvents sends queue's events until ctx ends: the initial list (each
// object as added), StreamListed once listed is closed and the list is
// sent, then each change. It returns a write error.
func sendEvents(ctx context.Context, s *streamSender, encoded *encodedObjects, queue *engine.Queue, listed <-chan struct{}) error {
	sentListed := false
	for {
		popCtx, stop := ctx, context.CancelFunc(func() {})
		if !sentListed {
			// Pop returns what is pending, then false once listed is
			// closed: the initial events are all in the queue by then.
			popCtx, stop = context.WithCancel(ctx)
			go func() {
				select {
				case <-listed:
					stop()
				case <-popCtx.Done():
				}
			}()
		}
		ev, ok := queue.Pop(popCtx)
		stop()
		if ctx.Err() != nil {
			return nil
		}
		if !sentListed && (!ok || !ev.Initial) {
			if err := s.send(protocol.StreamEvent{Type: protocol.StreamListed}); err != nil {
				return err
			}
			sentListed = true
		}
		if !ok {
			continue
		}
		if err := sendEvent(s, encoded, ev); err != nil {
			return err
		}
	}
}

// sendEvent sends one change of the cache's informer, its object encoded
// once for every stream that sends it (encoded).
func sendEvent(s *streamSender, encoded *encodedObjects, ev *engine.Event) error {
	var typ string
	switch ev.Type {
	case engine.Added:
		typ = protocol.StreamAdded
	case engine.Modified:
		typ = protocol.StreamModified
	case engine.Deleted:
		typ = protocol.StreamDeleted
	}
	if typ == "" || ev.Related != nil {
		return nil
	}
	raw, proto, err := encoded.encode(ev.Object())
	if err != nil {
		return fmt.Errorf("encoding %s: %w", ev.Key, err)
	}
	return s.sendObject(protocol.StreamEvent{Type: typ, Proto: proto, FinalStateUnknown: ev.FinalStateUnknown}, raw)
}
