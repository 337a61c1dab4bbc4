package server

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// Samples keeps the metrics API's latest samples for a warm cache's
// commands, as the Pool keeps informers: a usage.Poller per usage.Config
// asked (pods of a namespace or of all, nodes), started the first time it
// is asked and stopped once evictAfter has passed without a question (0:
// at Shutdown). The metrics API has no watch; a Poller reads it at its
// resolution. It only reads (get and list).
//
// Its methods are safe for concurrent use. Shutdown stops every Poller
// and waits for them.
type Samples struct {
	client     usage.Client
	evictAfter time.Duration
	ctx        context.Context
	cancel     context.CancelFunc
	wg         sync.WaitGroup

	mu      sync.Mutex
	readers map[usage.Config]*sampleReader
}

// sampleReader is one Poller and when it was last asked.
type sampleReader struct {
	poller *usage.Poller
	// first is closed when the Poller's first reading is in.
	first <-chan struct{}
	// asked is guarded by Samples.mu.
	asked time.Time
}

// NewSamples returns Samples that read through client, with no Poller yet.
func NewSamples(client usage.Client, evictAfter time.Duration) *Samples {
	ctx, cancel := context.WithCancel(context.Background())
	return &Samples{client: client, evictAfter: evictAfter, ctx: ctx, cancel: cancel, readers: map[usage.Config]*sampleReader{}}
}

// Latest returns the latest sample of what config asks for (its Interval
// is ignored) and the latest reading's error, as usage.Poller.Latest
// does. The first question of a config starts its Poller and waits for
// its first reading, or for ctx.
func (s *Samples) Latest(ctx context.Context, config usage.Config) (*usage.Snapshot, error) {
	config.Interval = 0
	r, err := s.reader(config)
	if err != nil {
		return nil, err
	}
	select {
	case <-r.first:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return r.poller.Latest()
}

// reader returns config's reader, started if it was not.
func (s *Samples) reader(config usage.Config) (*sampleReader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.readers[config]; ok {
		r.asked = time.Now()
		return r, nil
	}
	if s.ctx.Err() != nil {
		return nil, s.ctx.Err()
	}
	p, err := usage.NewPoller(s.client, config)
	if err != nil {
		return nil, err
	}
	r := &sampleReader{poller: p, first: p.Changed(), asked: time.Now()}
	s.readers[config] = r
	ctx, cancel := context.WithCancel(s.ctx)
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		_ = p.Run(ctx) // returns nil when ctx ends
	}()
	go func() {
		defer s.wg.Done()
		defer cancel()
		s.evictIdle(ctx, config, r)
	}()
	return r, nil
}

// evictIdle removes config's reader r once evictAfter has passed since it
// was last asked, or returns when ctx ends.
func (s *Samples) evictIdle(ctx context.Context, config usage.Config, r *sampleReader) {
	if s.evictAfter <= 0 {
		<-ctx.Done()
		return
	}
	timer := time.NewTimer(s.evictAfter)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		s.mu.Lock()
		idle := time.Since(r.asked)
		if idle >= s.evictAfter {
			delete(s.readers, config)
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		timer.Reset(s.evictAfter - idle)
	}
}

// Status describes every reader, those of all namespaces first, then by
// namespace.
func (s *Samples) Status() []protocol.UsageStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]protocol.UsageStatus, 0, len(s.readers))
	for config, r := range s.readers {
		st := protocol.UsageStatus{Pods: config.Pods, Nodes: config.Nodes, Namespace: config.Namespace, Readings: r.poller.Readings()}
		snapshot, err := r.poller.Latest()
		if snapshot != nil {
			_, st.Newest = snapshot.Span()
		}
		if err != nil {
			st.Error = err.Error()
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Pods != b.Pods {
			return a.Pods
		}
		return !a.Nodes && b.Nodes
	})
	return out
}

// Shutdown stops every Poller and waits for them; Latest fails after it.
func (s *Samples) Shutdown() {
	s.cancel()
	s.wg.Wait()
}
