package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"sync"
	"time"

	"github.com/kubectl-informer/kubectl-informer/internal/peercred"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// ErrNoCache means no cache runs for the identity: its socket does not exist.
var ErrNoCache = errors.New("no cache runs for this identity")

// UnavailableError means a socket exists but no working cache answered on
// it within the dial timeout: the process is gone (a socket left behind),
// hangs, refused the connection, or spoke something else.
type UnavailableError struct {
	Socket string
	Err    error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("the cache at %s did not answer: %v", e.Socket, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// VersionError means the cache speaks another protocol version.
type VersionError struct {
	Socket string
	Got    int
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("the cache at %s speaks protocol version %d, this kubectl-informer %d (restart it: kubectl informer cache stop; kubectl informer cache start)", e.Socket, e.Got, protocol.Version)
}

// PeerError means the process listening on the socket runs as another OS
// user: the client closed the connection without sending anything.
type PeerError struct {
	Socket string
	UID    int // the listening process's uid, -1 when it could not be read
	Want   int // this process's uid
	Err    error
}

func (e *PeerError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("cannot tell who owns the cache at %s: %v", e.Socket, e.Err)
	}
	return fmt.Sprintf("the cache at %s runs as uid %d, not as you (uid %d)", e.Socket, e.UID, e.Want)
}

// Conn is one connection to a cache, after its Hello.
type Conn struct {
	conn   net.Conn
	Socket string
	Hello  protocol.Hello
}

// Dial connects to the cache listening on socket and reads its Hello, both
// within timeout, so a cache that hangs never hangs the caller. It returns
// ErrNoCache when socket does not exist, an *UnavailableError when the cache
// does not answer, a *VersionError when its protocol differs, and a
// *PeerError, before reading or sending a byte, when the process that
// accepted the connection is not of this OS user (its peer credentials).
func Dial(socket string, timeout time.Duration) (*Conn, error) {
	return dial(socket, timeout, os.Getuid())
}

// dial is Dial with the uid the server must have.
func dial(socket string, timeout time.Duration, uid int) (*Conn, error) {
	if _, err := os.Lstat(socket); errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoCache
	}
	conn, err := net.DialTimeout("unix", socket, timeout)
	if err != nil {
		return nil, &UnavailableError{Socket: socket, Err: err}
	}
	if err := checkPeer(conn, socket, uid); err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		conn.Close()
		return nil, &UnavailableError{Socket: socket, Err: err}
	}
	var hello protocol.Hello
	if err := protocol.ReadJSON(conn, protocol.FrameHello, &hello); err != nil {
		conn.Close()
		if errors.Is(err, io.EOF) {
			err = errors.New("connection closed before its hello (refused?)")
		}
		return nil, &UnavailableError{Socket: socket, Err: err}
	}
	if hello.Version != protocol.Version {
		conn.Close()
		return nil, &VersionError{Socket: socket, Got: hello.Version}
	}
	if err := conn.SetDeadline(time.Time{}); err != nil {
		conn.Close()
		return nil, &UnavailableError{Socket: socket, Err: err}
	}
	return &Conn{conn: conn, Socket: socket, Hello: hello}, nil
}

// checkPeer returns a *PeerError unless the process at the other end of
// conn, a unix socket connection, runs as uid.
func checkPeer(conn net.Conn, socket string, uid int) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return &PeerError{Socket: socket, UID: -1, Want: uid, Err: fmt.Errorf("not a unix socket connection: %T", conn)}
	}
	peer, err := peercred.UID(uc)
	if err != nil {
		return &PeerError{Socket: socket, UID: -1, Want: uid, Err: err}
	}
	if peer != uid {
		return &PeerError{Socket: socket, UID: peer, Want: uid}
	}
	return nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.conn.Close() }

// Result is how a request ended: Exit, or Fallback when the cache declined it.
type Result struct {
	Exit     *protocol.Exit
	Fallback *protocol.Fallback
}

// ErrLostAfterOutput means the connection broke after some output had been
// written: the command cannot be answered again without repeating it.
var ErrLostAfterOutput = errors.New("the cache process ended the connection in the middle of the answer")

// SilenceTimeout is how long a request waits for the next frame once one has
// come: several heartbeat intervals (the server sends one every
// protocol.HeartbeatInterval while it answers).
const SilenceTimeout = 4 * protocol.HeartbeatInterval

// ErrFallbackAfterOutput means the cache declined a command after it had
// written some of its output: a server bug, reported rather than answering
// the command twice.
var ErrFallbackAfterOutput = errors.New("the cache declined the command after part of its answer")

// Collect sends req as a Collect request (a query's answer as data, see
// protocol.Collect) and copies the answer's bytes to stdout and the
// query's notes to stderr until the cache ends it.
//
// Frames are read as soon as they come, by a goroutine of their own, and
// held in memory until stdout and stderr take them: the cache's writes
// never wait on the caller. The first frame must come within firstFrame,
// every later one within SilenceTimeout; a cache that does not answer in
// time is lost like one that breaks the connection. When ctx ends it
// closes the connection (the cache then stops answering) and returns
// ctx's error. A connection that breaks or falls silent before any output
// came is an *UnavailableError, so the caller can answer itself; after
// output, the output that came is written and Collect returns
// ErrLostAfterOutput. A Fallback after output is ErrFallbackAfterOutput.
// An error writing stdout or stderr is returned as it is, and the
// connection closed.
func (c *Conn) Collect(ctx context.Context, req protocol.Request, firstFrame time.Duration, stdout, stderr io.Writer) (Result, error) {
	req.Kind = protocol.Collect
	return c.exchange(ctx, req, firstFrame, stdout, stderr)
}

// Stream sends req as a Stream request (a type's objects and changes as
// data, see protocol.Stream) and copies the events' bytes to stdout until
// the cache ends the stream, ctx ends or the connection breaks, with the
// timeouts, errors and Fallback of Collect.
func (c *Conn) Stream(ctx context.Context, req protocol.Request, firstFrame time.Duration, stdout, stderr io.Writer) (Result, error) {
	req.Kind = protocol.Stream
	return c.exchange(ctx, req, firstFrame, stdout, stderr)
}

// exchange sends req and reads its answer (Collect, and a Stream's).
func (c *Conn) exchange(ctx context.Context, req protocol.Request, firstFrame time.Duration, stdout, stderr io.Writer) (Result, error) {
	if err := c.conn.SetWriteDeadline(time.Now().Add(SilenceTimeout)); err != nil {
		return Result{}, &UnavailableError{Socket: c.Socket, Err: err}
	}
	if err := protocol.WriteJSON(c.conn, protocol.FrameRequest, req); err != nil {
		return Result{}, &UnavailableError{Socket: c.Socket, Err: err}
	}
	var closeOnce sync.Once
	closeConn := func() { closeOnce.Do(func() { c.conn.Close() }) }
	stop := context.AfterFunc(ctx, closeConn)
	defer stop()
	q := newFrameQueue()
	read := make(chan struct{})
	go func() {
		defer close(read)
		c.readFrames(ctx, firstFrame, q)
	}()
	defer func() {
		// Stops the reader if the writing side ended first (a closed pipe).
		closeConn()
		<-read
	}()
	for {
		f := q.pop()
		switch f.typ {
		case protocol.FrameStdout:
			if _, err := stdout.Write(f.payload); err != nil {
				return Result{}, err
			}
		case protocol.FrameStderr:
			if _, err := stderr.Write(f.payload); err != nil {
				return Result{}, err
			}
		default:
			return f.result, f.err
		}
	}
}

// queuedFrame is a frame the reader passed on: output (typ FrameStdout or
// FrameStderr, payload), or the end of the answer (any other typ: result, err).
type queuedFrame struct {
	typ     protocol.FrameType
	payload []byte
	result  Result
	err     error
}

// readFrames reads the answer's frames into q until its last one, or until
// the connection fails or falls silent; it always ends by pushing a frame
// that ends the answer.
func (c *Conn) readFrames(ctx context.Context, firstFrame time.Duration, q *frameQueue) {
	end := func(res Result, err error) { q.push(queuedFrame{result: res, err: err}) }
	output := false // an output frame came: the command cannot be asked again
	wait := firstFrame
	for {
		var (
			typ     protocol.FrameType
			payload []byte
		)
		// Setting the deadline fails too once the other end has closed
		// (net.Pipe): that is a lost connection like a failed read.
		err := c.conn.SetReadDeadline(time.Now().Add(wait))
		if err == nil {
			typ, payload, err = protocol.ReadFrame(c.conn)
		}
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				err = fmt.Errorf("no answer for %s", wait)
			}
			switch {
			case ctx.Err() != nil:
				end(Result{}, ctx.Err())
			case output:
				end(Result{}, fmt.Errorf("%w: %v", ErrLostAfterOutput, err))
			default:
				end(Result{}, &UnavailableError{Socket: c.Socket, Err: err})
			}
			return
		}
		wait = SilenceTimeout
		switch typ {
		case protocol.FrameHeartbeat:
		case protocol.FrameStdout, protocol.FrameStderr:
			output = true
			q.push(queuedFrame{typ: typ, payload: payload})
		case protocol.FrameExit:
			var exit protocol.Exit
			if err := decode(typ, payload, &exit); err != nil {
				end(Result{}, err)
				return
			}
			end(Result{Exit: &exit}, nil)
			return
		case protocol.FrameFallback:
			var fb protocol.Fallback
			if err := decode(typ, payload, &fb); err != nil {
				end(Result{}, err)
				return
			}
			if output {
				end(Result{}, fmt.Errorf("%w: %s", ErrFallbackAfterOutput, fb.Reason))
				return
			}
			end(Result{Fallback: &fb}, nil)
			return
		default:
			end(Result{}, fmt.Errorf("unexpected frame %q from the cache at %s", typ, c.Socket))
			return
		}
	}
}

// frameQueue is an unbounded FIFO of frames between the reader and the
// writer of an answer: the reader never waits for the writer.
type frameQueue struct {
	mu     sync.Mutex
	frames []queuedFrame
	ready  chan struct{} // holds a token while frames may be non-empty
}

func newFrameQueue() *frameQueue { return &frameQueue{ready: make(chan struct{}, 1)} }

func (q *frameQueue) push(f queuedFrame) {
	q.mu.Lock()
	q.frames = append(q.frames, f)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// pop waits for the next frame and removes it.
func (q *frameQueue) pop() queuedFrame {
	for {
		q.mu.Lock()
		if len(q.frames) > 0 {
			f := q.frames[0]
			q.frames[0] = queuedFrame{}
			q.frames = q.frames[1:]
			q.mu.Unlock()
			return f
		}
		q.mu.Unlock()
		<-q.ready
	}
}

// Status asks the cache for its Status, within timeout.
func (c *Conn) Status(timeout time.Duration) (protocol.Status, error) {
	var st protocol.Status
	if err := c.conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return st, err
	}
	if err := protocol.WriteJSON(c.conn, protocol.FrameRequest, protocol.Request{Kind: protocol.StatusRequest}); err != nil {
		return st, err
	}
	err := protocol.ReadJSON(c.conn, protocol.FrameStatus, &st)
	return st, err
}

// Stop asks the cache to exit and waits, within timeout, for it to say it
// will.
func (c *Conn) Stop(timeout time.Duration) error {
	if err := c.conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	if err := protocol.WriteJSON(c.conn, protocol.FrameRequest, protocol.Request{Kind: protocol.Stop}); err != nil {
		return err
	}
	var exit protocol.Exit
	return protocol.ReadJSON(c.conn, protocol.FrameExit, &exit)
}

func decode(typ protocol.FrameType, payload []byte, v any) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("decoding frame %c from the cache: %w", typ, err)
	}
	return nil
}
