package live

import (
	"slices"
	"testing"
	"time"
)

// fakeClock is the time a simulated live table reads.
type fakeClock struct{ now time.Time }

func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }

// simulatePacer runs the loop of Follow over a fake clock: changes come at
// the offsets given (from the first frame), and a frame is drawn whenever
// the pacer says one is due, taking cost to compute. It returns the offsets
// of the frames drawn until end.
func simulatePacer(changes []time.Duration, cost, end time.Duration) []time.Duration {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: start}
	p := newPacer(minRedrawGap, minIdleRedraw)
	var frames []time.Duration
	draw := func() {
		frames = append(frames, clock.now.Sub(start))
		clock.advance(cost)
		p.drawn(clock.now, cost)
	}
	next := 0
	for clock.now.Sub(start) < end {
		if due, _ := p.next(clock.now); due {
			draw()
			continue
		}
		_, wait := p.next(clock.now)
		// Sleep until the frame is due or the next change comes.
		at := clock.now.Add(wait)
		if next < len(changes) && start.Add(changes[next]).Before(at) {
			at = start.Add(changes[next])
		}
		clock.now = at
		for next < len(changes) && !start.Add(changes[next]).After(clock.now) {
			p.dirty = true
			next++
		}
	}
	return frames
}

func TestPacerCoalescesChanges(t *testing.T) {
	ms := time.Millisecond
	burst := make([]time.Duration, 100)
	for i := range burst {
		burst[i] = 10*ms + time.Duration(i)*4*ms // 100 changes in 400ms
	}
	tests := []struct {
		name    string
		changes []time.Duration
		cost    time.Duration
		end     time.Duration
		want    []time.Duration
	}{
		{"no change: a frame a second, for the ages", nil, 0, 2500 * ms, []time.Duration{0, 1000 * ms, 2000 * ms}},
		{"a change long after a frame is drawn at once", []time.Duration{600 * ms}, 0, 1000 * ms, []time.Duration{0, 600 * ms}},
		{"a change right after a frame waits for the gap", []time.Duration{10 * ms}, 0, 1000 * ms, []time.Duration{0, 250 * ms}},
		{"a burst of 100 changes is a frame per gap", burst, 0, 600 * ms, []time.Duration{0, 250 * ms, 500 * ms}},
		{"a table that takes 100ms to compute is drawn at most every 400ms", burst, 100 * ms, 1000 * ms, []time.Duration{0, 500 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := simulatePacer(tt.changes, tt.cost, tt.end)
			if !slices.Equal(got, tt.want) {
				t.Errorf("frames at %v, want %v", got, tt.want)
			}
			for i := 1; i < len(got); i++ {
				if gap := got[i] - got[i-1]; gap < minRedrawGap {
					t.Errorf("frames %v and %v are %v apart, less than %v", got[i-1], got[i], gap, minRedrawGap)
				}
			}
		})
	}
}
