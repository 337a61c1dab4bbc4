package stress

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// pace is how fast a consumer reads.
type pace int32

const (
	// paused reads nothing: the plugin's writes block once the pipe is full.
	paused pace = iota
	// trickle reads trickleBytes every trickleEvery, about 40 KB/s: a
	// terminal scrolled by hand, a slow ssh link.
	trickle
	// full reads as fast as the plugin writes.
	full
)

const (
	trickleBytes = 4 << 10
	trickleEvery = 100 * time.Millisecond
)

// consumer reads the standard output of a PipedProcess at the pace the test
// sets, and keeps the lines it has read.
type consumer struct {
	p    *framework.Process
	pace atomic.Int32

	mu      sync.Mutex
	lines   []string
	partial []byte
	read    int64
	next    int           // index of the next line waitLine looks at
	changed chan struct{} // closed and replaced when lines arrive or output ends
	eof     bool
	err     error
}

// newConsumer starts reading p's standard output at pace start.
func newConsumer(p *framework.Process, start pace) *consumer {
	c := &consumer{p: p, changed: make(chan struct{})}
	c.pace.Store(int32(start))
	go c.run()
	return c
}

func (c *consumer) setPace(p pace) { c.pace.Store(int32(p)) }

func (c *consumer) run() {
	buf := make([]byte, 256<<10)
	for {
		n := len(buf)
		switch pace(c.pace.Load()) {
		case paused:
			select {
			case <-c.p.Done():
				// Drain what the process left in the pipe.
				c.pace.Store(int32(full))
			case <-time.After(20 * time.Millisecond):
			}
			continue
		case trickle:
			n = trickleBytes
		}
		k, err := c.p.StdoutPipe.Read(buf[:n])
		c.add(buf[:k])
		if err != nil {
			c.mu.Lock()
			c.eof = true
			if !errors.Is(err, io.EOF) {
				c.err = err
			}
			close(c.changed)
			c.changed = make(chan struct{})
			c.mu.Unlock()
			return
		}
		if pace(c.pace.Load()) == trickle {
			time.Sleep(trickleEvery)
		}
	}
}

func (c *consumer) add(b []byte) {
	if len(b) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read += int64(len(b))
	c.partial = append(c.partial, b...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			break
		}
		c.lines = append(c.lines, string(c.partial[:i]))
		c.partial = c.partial[i+1:]
	}
	if len(c.partial) == 0 {
		c.partial = nil // let the backing array go
	}
	close(c.changed)
	c.changed = make(chan struct{})
}

// waitLine waits up to timeout for a line, not yet looked at, that matches.
func (c *consumer) waitLine(timeout time.Duration, match func(string) bool) (string, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		for c.next < len(c.lines) {
			line := c.lines[c.next]
			c.next++
			if match(line) {
				c.mu.Unlock()
				return line, nil
			}
		}
		if c.eof {
			err := c.err
			c.mu.Unlock()
			return "", fmt.Errorf("output ended (read error: %v) before a matching line", err)
		}
		wait := c.changed
		c.mu.Unlock()
		select {
		case <-wait:
		case <-deadline.C:
			return "", fmt.Errorf("no matching line within %s", timeout)
		}
	}
}

// snapshot returns the lines read so far and the number of bytes.
func (c *consumer) snapshot() ([]string, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...), c.read
}

// lastLines returns up to n of the last lines read, for failure messages.
func (c *consumer) lastLines(n int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	from := max(0, len(c.lines)-n)
	return strings.Join(c.lines[from:], "\n")
}
