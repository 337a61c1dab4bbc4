package usage

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Poller reads the metrics API again and again while its Run lasts and keeps
// the latest Snapshot, since the API has no watch.
//
// Latest and Changed may be called from any goroutine, before, during and
// after Run. Run starts no goroutine: every request it makes is done when it
// returns.
type Poller struct {
	client Client
	config Config

	// readings counts the readings that sent their LISTs.
	readings atomic.Int64

	mu      sync.Mutex
	latest  *Snapshot
	err     error
	changed chan struct{}
}

// pollSlack is how long after a sample's next one is due the Poller asks for
// it: metrics-server takes a moment to scrape and store it, and the API's
// timestamps are whole seconds (RFC 3339 in JSON), up to a second before the
// scrape.
const pollSlack = 2 * time.Second

// minDelay bounds how soon the Poller reads again.
const minDelay = time.Second

// NewPoller returns a Poller that reads what config asks for through client.
func NewPoller(client Client, config Config) (*Poller, error) {
	if err := config.validate(); err != nil {
		return nil, err
	}
	if config.Interval == 0 {
		config.Interval = DefaultInterval
	}
	return &Poller{client: client, config: config, changed: make(chan struct{})}, nil
}

// Run reads the metrics API at once, then again until ctx is done, and
// returns nil when it is. It reads again Interval after a reading, or sooner:
// when the newest sample's Timestamp plus its Window (metrics-server's
// resolution) says when the next sample is due, and every quarter window
// while that sample is late, for up to a window. It checks discovery, as
// Fetch does, before the first reading and after any reading that failed.
// A reading that fails keeps the previous Snapshot and records the error
// (Latest); the next may succeed. Run must not be called twice at once.
func (p *Poller) Run(ctx context.Context) error {
	checked := false
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
		s, err := p.read(ctx, checked)
		if ctx.Err() != nil {
			return nil
		}
		checked = err == nil
		p.publish(s, err)
		timer.Reset(p.delay(s, time.Now()))
	}
}

// read is one reading, with discovery unless checked.
func (p *Poller) read(ctx context.Context, checked bool) (*Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	if !checked {
		if err := checkAPI(p.client.Discovery); err != nil {
			return nil, err
		}
	}
	p.readings.Add(1)
	return list(ctx, p.client, p.config)
}

// Readings is how many readings have sent their LISTs (one of PodMetrics,
// one of NodeMetrics, as the Config asks) since the Poller was made.
func (p *Poller) Readings() int64 { return p.readings.Load() }

// delay is how long to wait after a reading that returned s (nil if it
// failed) at now.
func (p *Poller) delay(s *Snapshot, now time.Time) time.Duration {
	d := p.config.Interval
	if s == nil {
		return d
	}
	newest := newestSample(s)
	if newest.Timestamp.IsZero() || newest.Window <= 0 {
		return d
	}
	due := newest.Timestamp.Add(newest.Window).Add(pollSlack).Sub(now)
	switch {
	case due > 0:
		d = min(d, max(due, minDelay))
	case -due < newest.Window:
		// The next sample is late (metrics-server stores a sample a
		// moment after it scraped it): ask again a few times within a
		// window rather than wait a whole Interval.
		d = min(d, max(newest.Window/4, minDelay))
	}
	return d
}

// newestSample is the sample of s with the latest Timestamp; zero if s has
// none.
func newestSample(s *Snapshot) Sample {
	var newest Sample
	for _, p := range s.Pods {
		if p.Timestamp.After(newest.Timestamp) {
			newest = p.Sample
		}
	}
	for _, n := range s.Nodes {
		if n.Timestamp.After(newest.Timestamp) {
			newest = n.Sample
		}
	}
	return newest
}

// publish records a reading: its Snapshot if it succeeded, and its error.
// Changed's channel is closed when the samples or the error changed.
func (p *Poller) publish(s *Snapshot, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	changed := false
	if s != nil {
		changed = !s.SameSamples(p.latest)
		p.latest = s
	}
	if !sameError(err, p.err) {
		changed = true
	}
	p.err = err
	if changed {
		close(p.changed)
		p.changed = make(chan struct{})
	}
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// Latest returns the Snapshot of the latest reading that succeeded (nil
// before the first did) and the error of the latest reading (nil if it
// succeeded). After a failed reading the Snapshot is the one before it: its
// Fetched and its samples' ages tell how stale it is.
func (p *Poller) Latest() (*Snapshot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.latest, p.err
}

// Changed returns a channel that is closed when what Latest returns next
// changes: a reading brought new samples, or an error other than the last
// one, or success after an error. Call it again for the change after that.
func (p *Poller) Changed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}
