package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// DeclinedError says why the warm cache does not answer a request; the
// client then reads its API server itself, printing Warning first if set.
type DeclinedError struct {
	Reason  string
	Warning string
}

func (e *DeclinedError) Error() string { return "the warm cache declined: " + e.Reason }

// AcquireFresh is Acquire for a client's request, which the cache answers
// only as the client's own informers would: it declines (*DeclinedError)
// what the pool cannot share, a type whose list or watch the API server
// refused (the client then gets the refusal itself), and, with
// maxStaleness above 0, a type whose watch has been failing for longer. It
// waits for the engines no longer than cfg.SyncTimeout, whatever the
// timeout of the request that started them.
func (p *Pool) AcquireFresh(ctx context.Context, mappings []*meta.RESTMapping, cfg engine.Config, opts Options, maxStaleness time.Duration) (*Lease, error) {
	acquireCtx, cancel := ctx, context.CancelFunc(func() {})
	if cfg.SyncTimeout > 0 {
		acquireCtx, cancel = context.WithTimeout(ctx, cfg.SyncTimeout)
	}
	defer cancel()
	lease, err := p.Acquire(acquireCtx, mappings, cfg, opts)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, fmt.Errorf("timed out after %s waiting for the warm cache to sync (raise --sync-timeout for very large lists)", cfg.SyncTimeout)
	}
	var timeout *engine.SyncTimeoutError
	if errors.As(err, &timeout) {
		return nil, fmt.Errorf("%w (raise --sync-timeout for very large lists)", err)
	}
	var notShared *NotSharedError
	if errors.As(err, &notShared) {
		return nil, &DeclinedError{Reason: notShared.Reason}
	}
	if engine.IsForbidden(err) {
		return nil, &DeclinedError{Reason: "the API server refused the cache's list: " + err.Error()}
	}
	if err != nil {
		return nil, err
	}
	if t, lastErr, denied := lease.Denied(); denied {
		lease.Shutdown()
		return nil, &DeclinedError{Reason: fmt.Sprintf("the API server refused the watch of %s: %s", t.Name(), lastErr)}
	}
	t, since, _, stale := lease.Stale()
	if !stale {
		return lease, nil
	}
	age := time.Since(since).Round(time.Second)
	if maxStaleness > 0 && age > maxStaleness {
		lease.Shutdown()
		return nil, &DeclinedError{
			Reason:  fmt.Sprintf("the watch of %s has been failing for %s", t.Name(), age),
			Warning: fmt.Sprintf("warning: the warm cache's watch of %s has been failing for %s (since %s), longer than --max-staleness %s; asking the API server directly", t.Name(), age, since.UTC().Format(time.RFC3339), maxStaleness),
		}
	}
	return lease, nil
}

// OutcomeOf is how a request that ended with err ends for its client: a
// Fallback when the cache declined it, an Exit otherwise.
func OutcomeOf(err error) Outcome {
	var declined *DeclinedError
	switch {
	case errors.As(err, &declined):
		return Outcome{Fallback: &protocol.Fallback{Reason: declined.Reason, Warning: declined.Warning}}
	case err != nil:
		return Outcome{Exit: protocol.Exit{Code: 1, Error: err.Error()}}
	}
	return Outcome{}
}
