package offline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// This file plays a recording back through a Source.

// Window is the part of a recording a replay plays.
type Window struct {
	// Since is the instant whose state the replay starts from; the events
	// recorded after it are played. Zero means the recording's start: the
	// state its initial lists recorded.
	Since time.Time
	// Until is the instant after which no event is played; zero means the
	// recording's end.
	Until time.Time
	// Speed plays the events at Speed times the pace they were recorded
	// at, the first one Speed times its distance from Since; 0 plays them
	// all at once, in order.
	Speed float64
}

// Replay is a recording played back through a Source: the Source holds the
// state at the window's start, and Run applies every event recorded in the
// window to it, in the order recorded, then finishes it.
type Replay struct {
	path   string
	window Window
	source *Source

	mu sync.Mutex
	// err is the error Run ended with.
	err error
	// times holds when each applied change was recorded, by the object's
	// kind, namespace, name and resourceVersion as applied, until
	// RecordedAt takes it.
	times map[changeKey]time.Time
}

// changeKey names one state of an object of a replay.
type changeKey struct {
	gk                               schema.GroupKind
	namespace, name, resourceVersion string
}

// RecordedAt returns when the state of the object of kind gk with
// namespace, name and resourceVersion (as the replay's source serves it)
// was recorded, and forgets it: each state's time is asked once. A state
// of the replay's start, or one asked for again, is reported as Since. The
// times of states no one asks for (of types or objects a watch does not
// print) are kept until the replay is dropped, one small entry per event
// of the window.
func (p *Replay) RecordedAt(gk schema.GroupKind, namespace, name, resourceVersion string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := changeKey{gk, namespace, name, resourceVersion}
	if t, ok := p.times[k]; ok {
		delete(p.times, k)
		return t
	}
	return p.window.Since
}

// NewReplay reads the state at the start of window from the recording at
// path and returns the replay of the window's events. Errors name the file.
func NewReplay(path string, window Window) (*Replay, error) {
	if window.Speed < 0 {
		return nil, fmt.Errorf("replay speed %g is negative", window.Speed)
	}
	if window.Since.IsZero() {
		since, err := recordingStart(path)
		if err != nil {
			return nil, err
		}
		window.Since = since
	}
	header, objects, err := recording.StateAtPath(path, window.Since)
	if err != nil {
		return nil, err
	}
	source, err := NewSource(objects, Mappings(header))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Replay{path: path, window: window, source: source, times: map[changeKey]time.Time{}}, nil
}

// recordingStart reads the initial events of the recording at path, those
// before its first live event, and returns when the state at its start is
// complete: the time of the last of them, or the header's start when
// later.
func recordingStart(path string) (time.Time, error) {
	r, err := recording.OpenEvents(path)
	if err != nil {
		return time.Time{}, err
	}
	defer r.Close()
	end := r.Header().Started
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return end, nil
		}
		if err != nil {
			return time.Time{}, err
		}
		if !ev.Initial {
			return end, nil
		}
		if ev.Time.After(end) {
			end = ev.Time
		}
	}
}

// Source returns the source the replay plays through: a *Source. Until Run
// starts, it holds the state at the window's start; its Finished channel
// closes once Run has ended, and its Offered count says how many events Run's
// changes queued for its watches.
func (p *Replay) Source() engine.Source { return p.source }

// finish records err, the error Run ends with, and finishes the source: no
// more events will come.
func (p *Replay) finish(err error) {
	p.mu.Lock()
	p.err = err
	p.mu.Unlock()
	p.source.Finish()
}

// Err returns the error Run ended with, once the source has finished; nil
// before, or when Run played the whole window or was interrupted.
func (p *Replay) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Since returns the instant the replay starts from.
func (p *Replay) Since() time.Time { return p.window.Since }

// Run applies the window's events to the source, in the order recorded, at
// the window's speed, and then finishes the source, also when it fails or
// ctx ends first. The caller starts it once the source's first readers have
// listed the state at the window's start.
func (p *Replay) Run(ctx context.Context) (err error) {
	defer func() { p.finish(err) }()
	r, err := recording.OpenEvents(p.path)
	if err != nil {
		return err
	}
	defer r.Close()
	clock := newReplayClock(p.window.Since, p.window.Speed)
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !ev.Time.After(p.window.Since) {
			continue
		}
		if !p.window.Until.IsZero() && ev.Time.After(p.window.Until) {
			return nil
		}
		if err := clock.wait(ctx, ev.Time); err != nil {
			return nil // interrupted: the watch ends as it does live
		}
		k := changeKey{gk: ev.Object.GroupVersionKind().GroupKind(), namespace: ev.Object.GetNamespace(), name: ev.Object.GetName()}
		p.mu.Lock()
		err = p.source.Apply(ev.Type, ev.Object)
		if err == nil {
			// Apply set the resourceVersion the source serves the state at.
			k.resourceVersion = ev.Object.GetResourceVersion()
			p.times[k] = ev.Time
		}
		p.mu.Unlock()
		if err != nil {
			return fmt.Errorf("%s: replaying the %s of %s/%s recorded at %s: %w", p.path, ev.Type, ev.Object.GetKind(), ev.Object.GetName(), ev.Time.UTC().Format(time.RFC3339Nano), err)
		}
	}
}

// replayClock paces a replay: an event recorded at t is due at
// (t - since) / speed after the replay started.
type replayClock struct {
	since   time.Time
	speed   float64
	started time.Time
	// sleep waits d or until ctx ends; a test replaces it.
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
}

func newReplayClock(since time.Time, speed float64) *replayClock {
	return &replayClock{since: since, speed: speed, started: time.Now(), sleep: sleepContext, now: time.Now}
}

// due returns how long after the start of the replay an event recorded at
// t is played; 0 at speed 0.
func (c *replayClock) due(t time.Time) time.Duration {
	if c.speed == 0 {
		return 0
	}
	return time.Duration(float64(t.Sub(c.since)) / c.speed)
}

// wait waits until the event recorded at t is due; it fails when ctx ends
// first. At speed 0 it only checks ctx.
func (c *replayClock) wait(ctx context.Context, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.speed == 0 {
		return nil
	}
	if d := c.due(t) - c.now().Sub(c.started); d > 0 {
		return c.sleep(ctx, d)
	}
	return nil
}

func sleepContext(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
