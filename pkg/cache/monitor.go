package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// requestMonitor sees the outcome of every list and watch request the
// engine's clients send. client-go's reflector retries a failed watch on its
// own and tells the watch error handler only when a relist fails, so an
// outage after sync would otherwise pass in silence; the transport is the
// one place that sees every attempt.
type requestMonitor struct {
	mu     sync.RWMutex
	notify func(path string, watch bool, err error)
}

// set installs the callback; the engine calls it once, before Start.
func (m *requestMonitor) set(notify func(path string, watch bool, err error)) {
	m.mu.Lock()
	m.notify = notify
	m.mu.Unlock()
}

func (m *requestMonitor) observe(req *http.Request, err error) {
	m.mu.RLock()
	notify := m.notify
	m.mu.RUnlock()
	if notify != nil {
		notify(req.URL.Path, req.URL.Query().Get("watch") == "true", err)
	}
}

// wrap returns a RoundTripper that reports transport errors and successful
// responses to the monitor.
func (m *requestMonitor) wrap(rt http.RoundTripper) http.RoundTripper {
	return monitoredTransport{monitor: m, next: rt}
}

type monitoredTransport struct {
	monitor *requestMonitor
	next    http.RoundTripper
}

func (t monitoredTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 {
		t.monitor.observe(req, err)
	}
	if err == nil && resp.StatusCode < 400 && req.URL.Query().Get("watch") == "true" {
		resp.Body = &monitoredBody{ReadCloser: resp.Body, monitor: t.monitor, req: req}
	}
	return resp, err
}

// monitoredBody reports a watch stream that breaks: a connection lost
// after the response began (a reset, or the HTTP/2 health check giving up
// on a silent connection) reaches the reflector only as the end of the
// watch, which it logs and retries without telling its error handler.
type monitoredBody struct {
	io.ReadCloser
	monitor *requestMonitor
	req     *http.Request
	closed  atomic.Bool
	once    sync.Once
}

func (b *monitoredBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && !b.closed.Load() &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		b.once.Do(func() { b.monitor.observe(b.req, fmt.Errorf("watch stream broken: %w", err)) })
	}
	return n, err
}

// Close marks the end as the client's own doing before it happens, so a
// Read it interrupts is not reported.
func (b *monitoredBody) Close() error {
	b.closed.Store(true)
	return b.ReadCloser.Close()
}

// matchesPath reports whether an API path lists or watches t's resource:
// /api/v1/pods, /api/v1/namespaces/NS/pods, /apis/GROUP/VERSION/widgets, …
func (t *Type) matchesPath(path string) bool {
	gvr := t.Mapping.Resource
	prefix := "/apis/" + gvr.Group + "/" + gvr.Version + "/"
	if gvr.Group == "" {
		prefix = "/api/" + gvr.Version + "/"
	}
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return false
	}
	if ns, ok := strings.CutPrefix(rest, "namespaces/"); ok && t.Namespaced() {
		if _, after, found := strings.Cut(ns, "/"); found {
			rest = after
		}
	}
	return rest == gvr.Resource
}
