package live

import "time"

// Redraw intervals of a frame on a terminal.
const (
	// minRedrawGap is the shortest time between two frames: a burst of
	// changes is one frame.
	minRedrawGap = 250 * time.Millisecond
	// minIdleRedraw is how often a frame that did not change is drawn
	// again, so that its ages move on.
	minIdleRedraw = time.Second
	// renderShare bounds the time spent computing frames: the gap between
	// two frames is at least renderShare times the last one's cost.
	renderShare = 4
)

// pacer decides when an answer is drawn: as soon as it changed, but not
// sooner than gap after the last draw (changes meanwhile make one draw),
// and every idle interval when nothing changed. It reads no clock: the
// caller passes the time.
type pacer struct {
	last  time.Time // when the last draw was; zero before the first
	dirty bool      // something changed since the last draw
	gap   time.Duration
	idle  time.Duration
	// minGap and minIdle are the least gap and idle interval.
	minGap, minIdle time.Duration
}

// newPacer returns a pacer whose draws are at least minGap apart, and at
// most minIdle when nothing changed (more for costly draws).
func newPacer(minGap, minIdle time.Duration) *pacer {
	return &pacer{gap: minGap, idle: minIdle, minGap: minGap, minIdle: minIdle}
}

// next reports whether a draw is due at now, and if not, how long until
// one is.
func (p *pacer) next(now time.Time) (draw bool, wait time.Duration) {
	if p.last.IsZero() {
		return true, 0
	}
	after := p.idle
	if p.dirty {
		after = p.gap
	}
	if elapsed := now.Sub(p.last); elapsed < after {
		return false, after - elapsed
	}
	return true, 0
}

// drawn records a draw at now that took cost to compute: the next ones
// wait renderShare times that, at least.
func (p *pacer) drawn(now time.Time, cost time.Duration) {
	p.last, p.dirty = now, false
	p.gap = max(p.minGap, renderShare*cost)
	p.idle = max(p.minIdle, 2*renderShare*cost)
}
