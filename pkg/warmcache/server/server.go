package server

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/internal/peercred"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// Handler answers one Collect or Stream request, writing its answer to
// stdout and its notes to stderr, until it ends or ctx ends (the client
// went away, or the server stops). It returns its exit, or a Fallback when
// the cache declines to answer (before writing any output).
type Handler func(ctx context.Context, req protocol.Request, stdout, stderr io.Writer) Outcome

// Outcome is how a Handler ended.
type Outcome struct {
	Exit     protocol.Exit
	Fallback *protocol.Fallback
}

// Server serves one identity's cache on a unix socket.
type Server struct {
	// Listener is the socket, from Listen.
	Listener *Listener
	// Collect answers Collect requests (an answer as data, for a fleet
	// query); nil declines them with a Fallback.
	Collect Handler
	// Stream answers Stream requests (a type's objects and changes as
	// data); nil declines them with a Fallback.
	Stream Handler
	// Status fills in what the server does not know of a Status: server,
	// user, context, caches.
	Status func(*protocol.Status)
	// IdleTimeout ends Serve after this long without a request and with
	// none in progress; 0 means never.
	IdleTimeout time.Duration
	// Build is the program's version and BuildID its build's identity
	// (version.BuildID), sent in the Hello.
	Build   string
	BuildID string

	started time.Time
	mu      sync.Mutex
	active  int
	last    time.Time
	conns   map[*net.UnixConn]struct{} // open connections, closed at shutdown
	closed  bool                       // set at shutdown: new connections are closed at once
	stop    chan struct{}
	once    sync.Once

	// answered and declined count the Runs that ended with an exit and
	// with a Fallback; guarded by mu.
	answered, declined int64
}

// requestTimeout bounds how long a connected client may take to send its
// request.
const requestTimeout = 10 * time.Second

// Serve accepts connections until ctx ends, a Stop request comes, or the
// server has been idle for IdleTimeout; it then closes the listener (which
// removes the socket), closes every open connection (which ends the
// running requests) and returns after they have ended.
// Every connection whose peer uid is not the server's own is closed at once,
// before a single byte is sent.
func (s *Server) Serve(ctx context.Context) error {
	s.started = time.Now()
	s.last = s.started
	s.stop = make(chan struct{})
	s.conns = map[*net.UnixConn]struct{}{}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.stop:
		case <-ctx.Done():
		}
		// Connections first: a running command then sees its client gone
		// (the client: a lost cache, exit 1) rather than ending as if done.
		s.closeConns()
		cancel()
	}()
	if s.IdleTimeout > 0 {
		go s.exitWhenIdle(ctx)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := s.Listener.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil || s.isClosed() {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if !s.track(conn) {
			conn.Close()
			continue
		}
		wg.Go(func() {
			defer s.untrack(conn)
			s.serveConn(ctx, conn)
		})
	}
}

// track records an open connection; it reports false after shutdown.
func (s *Server) track(conn *net.UnixConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[conn] = struct{}{}
	return true
}

func (s *Server) untrack(conn *net.UnixConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, conn)
}

// closeConns closes the listener and every open connection, so no request
// outlives the server: a client that stopped reading cannot keep the
// process alive.
func (s *Server) closeConns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.Listener.Close()
	for conn := range s.conns {
		conn.Close()
	}
}

// isClosed reports whether closeConns has run.
func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// shutdown makes Serve return.
func (s *Server) shutdown() { s.once.Do(func() { close(s.stop) }) }

func (s *Server) exitWhenIdle(ctx context.Context) {
	tick := time.NewTicker(min(s.IdleTimeout/4, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s.mu.Lock()
		idle := s.active == 0 && time.Since(s.last) >= s.IdleTimeout
		s.mu.Unlock()
		if idle {
			klog.InfoS("idle timeout: exiting", "idleTimeout", s.IdleTimeout)
			s.shutdown()
			return
		}
	}
}

func (s *Server) serveConn(ctx context.Context, conn *net.UnixConn) {
	defer conn.Close()
	uid, err := peercred.UID(conn)
	if err != nil {
		klog.InfoS("refused a connection: no peer credentials", "err", err)
		return
	}
	if uid != os.Getuid() {
		klog.InfoS("refused a connection from another user", "peerUID", uid, "uid", os.Getuid())
		return
	}
	if err := protocol.WriteJSON(conn, protocol.FrameHello, protocol.Hello{Version: protocol.Version, Pid: os.Getpid(), Build: s.Build, BuildID: s.BuildID}); err != nil {
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(requestTimeout))
	var req protocol.Request
	if err := protocol.ReadJSON(conn, protocol.FrameRequest, &req); err != nil {
		klog.V(1).InfoS("bad request", "err", err)
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	switch req.Kind {
	case protocol.StatusRequest:
		_ = protocol.WriteJSON(conn, protocol.FrameStatus, s.status())
	case protocol.Stop:
		klog.InfoS("stop requested")
		_ = protocol.WriteJSON(conn, protocol.FrameExit, protocol.Exit{})
		s.shutdown()
	case protocol.Collect:
		s.run(ctx, conn, req, declineWithout(s.Collect, "collect"))
	case protocol.Stream:
		s.run(ctx, conn, req, declineWithout(s.Stream, "stream"))
	default:
		klog.InfoS("unknown request", "kind", req.Kind)
	}
}

func (s *Server) status() protocol.Status {
	s.mu.Lock()
	st := protocol.Status{
		Pid:         os.Getpid(),
		Socket:      s.Listener.Addr().String(),
		Build:       s.Build,
		Started:     s.started,
		LastRequest: s.last,
		Active:      s.active,
		IdleTimeout: protocol.Duration(s.IdleTimeout),
		Answered:    s.answered,
		Declined:    s.declined,
	}
	s.mu.Unlock()
	st.RSSBytes = residentBytes()
	if s.Status != nil {
		s.Status(&st)
	}
	return st
}

// run answers a Collect or Stream request with h: the command's context ends
// when the client closes the connection (Ctrl-C, a closed pipe) or the
// server stops.
func (s *Server) run(ctx context.Context, conn *net.UnixConn, req protocol.Request, h Handler) {
	s.mu.Lock()
	s.active++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active--
		s.last = time.Now()
		s.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// The client sends nothing more: a read returns when it goes away.
		var b [1]byte
		_, _ = conn.Read(b[:])
		cancel()
	}()
	out := newFrameOutput(conn)
	out.setDeadline = conn.SetWriteDeadline
	go func() {
		tick := time.NewTicker(protocol.HeartbeatInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if out.heartbeat() != nil {
					return
				}
			}
		}
	}()
	outcome := h(ctx, req, out.stdout(), out.stderr())
	cancel() // ends the heartbeats
	s.mu.Lock()
	if outcome.Fallback != nil {
		s.declined++
	} else {
		s.answered++
	}
	s.mu.Unlock()
	if err := out.close(); err != nil {
		return
	}
	if outcome.Fallback != nil {
		_ = out.writeJSON(protocol.FrameFallback, outcome.Fallback)
		return
	}
	_ = out.writeJSON(protocol.FrameExit, outcome.Exit)
}
