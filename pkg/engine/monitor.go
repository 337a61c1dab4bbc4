package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/protoskip"
)

// requestOptions is what one engine asks of the requests its informers
// send. It travels on each request's context, not in Clients, so engines
// that share one Clients neither see nor change each other's requests.
type requestOptions struct {
	// observe, when set, gets the outcome of every list and watch request:
	// client-go's reflector retries a failed watch on its own and tells the
	// watch error handler only when a relist fails, so an outage after sync
	// would otherwise pass in silence; the transport sees every attempt.
	observe func(path string, watch bool, err error)
	// answered, when set, is told of every response to a list or watch
	// request, whatever its status: the server can be reached.
	answered func()
	// plainWatches asks for watch streams without gzip (see
	// Config.PlainWatchStreams).
	plainWatches bool
	// reads is what the engine's typed feeds decode (Config.Reads); nil
	// decodes whole objects.
	reads *protoskip.Plan
	// dropsManagedFields says the engine drops managedFields
	// (DropManagedFields), so its streamed metadata lists skip them.
	dropsManagedFields bool
	// feed is what a feed that reads another engine asks of it.
	feed FeedRequest
}

// FeedRequest is what an engine asks of its feeds besides the list
// options: a feed that reads another engine's cache (a warm cache) asks
// that engine for the same, so that both keep the same of each object and
// fail alike.
type FeedRequest struct {
	ManagedFields ManagedFields
	RequireWatch  bool
	SyncTimeout   time.Duration
}

// FeedRequestOf returns the FeedRequest of the engine whose informer's list
// or watch ctx belongs to; ok is false for another request (a one-off read
// beside an engine, engine.List or engine.Get).
func FeedRequestOf(ctx context.Context) (req FeedRequest, ok bool) {
	if o, ok := ctx.Value(requestOptionsKey{}).(*requestOptions); ok && o != nil {
		return o.feed, true
	}
	return FeedRequest{}, false
}

type requestOptionsKey struct{}

// withRequestOptions returns ctx carrying opts to the engine's transports.
func withRequestOptions(ctx context.Context, opts *requestOptions) context.Context {
	return context.WithValue(ctx, requestOptionsKey{}, opts)
}

// requestOptionsOf returns the options req's context carries; a request
// that carries none (not an engine's) gets the zero options.
func requestOptionsOf(req *http.Request) requestOptions {
	if opts, ok := req.Context().Value(requestOptionsKey{}).(*requestOptions); ok && opts != nil {
		return *opts
	}
	return requestOptions{}
}

func isWatch(req *http.Request) bool { return req.URL.Query().Get("watch") == "true" }

// monitorRequests returns a RoundTripper that reports transport errors,
// successful responses and broken watch streams to the observer of each
// request's engine.
func monitorRequests(rt http.RoundTripper) http.RoundTripper {
	return monitoredTransport{next: rt}
}

type monitoredTransport struct {
	next http.RoundTripper
}

func (t monitoredTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	opts := requestOptionsOf(req)
	observe := opts.observe
	if observe == nil {
		return t.next.RoundTrip(req)
	}
	resp, err := t.next.RoundTrip(req)
	if err == nil && opts.answered != nil {
		opts.answered()
	}
	watch := isWatch(req)
	if err != nil || resp.StatusCode < 400 {
		observe(req.URL.Path, watch, err)
	}
	if err == nil && resp.StatusCode < 400 && watch {
		path := req.URL.Path
		resp.Body = &monitoredBody{ReadCloser: resp.Body, broken: func(err error) { observe(path, true, err) }}
	}
	return resp, err
}

// monitoredBody reports a watch stream that breaks: a connection lost
// after the response began (a reset, or the HTTP/2 health check giving up
// on a silent connection) reaches the reflector only as the end of the
// watch, which it logs and retries without telling its error handler.
type monitoredBody struct {
	io.ReadCloser
	broken func(error)
	closed atomic.Bool
	once   sync.Once
}

func (b *monitoredBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && !b.closed.Load() &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		b.once.Do(func() { b.broken(fmt.Errorf("watch stream broken: %w", err)) })
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
