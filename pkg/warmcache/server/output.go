package server

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// stdoutFlushDelay bounds how long command output may wait in the buffer
// before it is sent; a query's many small writes become a few frames.
const stdoutFlushDelay = 5 * time.Millisecond

// writeTimeout bounds how long one frame may take to write: a client that
// stops reading for longer (hung: a client reads frames as they come, into
// memory, whatever its own stdout does) loses its command, which then ends
// and gives back its lease.
const writeTimeout = time.Minute

// stdoutBuffer is how many bytes of stdout are sent in one frame at most.
const stdoutBuffer = 64 << 10

// frameOutput turns a command's stdout and stderr writes into frames on
// one connection. Stdout is buffered (sent when the buffer fills, after
// stdoutFlushDelay, and before any stderr), stderr is sent at once, so the
// client sees the two streams in the order they were written.
type frameOutput struct {
	mu sync.Mutex
	w  io.Writer
	// setDeadline, when set, is called with the write deadline before
	// each frame.
	setDeadline func(time.Time) error
	buf         bytes.Buffer
	timer       *time.Timer
	err         error
}

func newFrameOutput(w io.Writer) *frameOutput { return &frameOutput{w: w} }

type streamWriter struct {
	o   *frameOutput
	typ protocol.FrameType
}

func (s streamWriter) Write(p []byte) (int, error) { return s.o.write(s.typ, p) }

func (o *frameOutput) stdout() io.Writer { return streamWriter{o, protocol.FrameStdout} }
func (o *frameOutput) stderr() io.Writer { return streamWriter{o, protocol.FrameStderr} }

func (o *frameOutput) write(typ protocol.FrameType, p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return 0, o.err
	}
	if typ == protocol.FrameStderr {
		if err := o.flushLocked(); err != nil {
			return 0, err
		}
		if err := o.frameLocked(typ, p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	o.buf.Write(p)
	if o.buf.Len() >= stdoutBuffer {
		if err := o.flushLocked(); err != nil {
			return 0, err
		}
	} else if o.timer == nil {
		o.timer = time.AfterFunc(stdoutFlushDelay, func() {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.timer = nil
			_ = o.flushLocked()
		})
	}
	return len(p), nil
}

// deadlineLocked sets the write deadline of the next frame.
func (o *frameOutput) deadlineLocked() error {
	if o.setDeadline == nil {
		return nil
	}
	return o.setDeadline(time.Now().Add(writeTimeout))
}

func (o *frameOutput) frameLocked(typ protocol.FrameType, p []byte) error {
	for len(p) > 0 {
		n := min(len(p), stdoutBuffer)
		if err := o.deadlineLocked(); err != nil {
			o.err = err
			return err
		}
		if err := protocol.WriteFrame(o.w, typ, p[:n]); err != nil {
			o.err = err
			return err
		}
		p = p[n:]
	}
	return nil
}

func (o *frameOutput) flushLocked() error {
	if o.err != nil {
		return o.err
	}
	if o.buf.Len() == 0 {
		return nil
	}
	err := o.frameLocked(protocol.FrameStdout, o.buf.Bytes())
	o.buf.Reset()
	return err
}

// close sends what stdout still holds; later writes fail.
func (o *frameOutput) close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
	err := o.flushLocked()
	if o.err == nil {
		o.err = io.ErrClosedPipe
	}
	return err
}

// heartbeat sends an empty FrameHeartbeat, unless the output is closed or
// broken.
func (o *frameOutput) heartbeat() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	if err := o.deadlineLocked(); err != nil {
		return err
	}
	if err := protocol.WriteFrame(o.w, protocol.FrameHeartbeat, nil); err != nil {
		o.err = err
		return err
	}
	return nil
}

// writeJSON sends the last frame, after close.
func (o *frameOutput) writeJSON(typ protocol.FrameType, v any) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.deadlineLocked(); err != nil {
		return err
	}
	return protocol.WriteJSON(o.w, typ, v)
}
