package engine

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// SyncTimeoutError is what Start returns when Config.SyncTimeout passes
// before every cache has synced.
type SyncTimeoutError struct {
	// Timeout is the Config.SyncTimeout that passed.
	Timeout time.Duration
	// Pending are the types whose caches had not synced, sorted by name,
	// with the objects each had received.
	Pending []TypeProgress
	// Silent is the URL of the API server the engine read when it
	// answered none of the engine's requests (see Feed.Server), "" when it
	// answered or the engine read no API server.
	Silent string
}

func (e *SyncTimeoutError) Error() string {
	waiting := make([]string, len(e.Pending))
	for i, p := range e.Pending {
		waiting[i] = fmt.Sprintf("%s (%d objects received)", p.Name, p.Received)
	}
	if e.Silent != "" {
		return fmt.Sprintf("timed out after %s waiting for %s to answer the lists of %v", e.Timeout, e.Silent, waiting)
	}
	return fmt.Sprintf("timed out after %s waiting for the cache of %v to sync", e.Timeout, waiting)
}

// maxConnErrorsBeforeSync is how many list attempts in a row may fail to
// reach the server before the first sync gives up. The reflector backs off
// 0.8 s, 1.6 s, … between attempts, so three failures take a few seconds.
const maxConnErrorsBeforeSync = 3

// isFatal reports whether a list or watch error before the first sync is one
// that retrying will not fix.
func isFatal(err error) bool {
	switch {
	case apierrors.IsForbidden(err),
		apierrors.IsUnauthorized(err),
		apierrors.IsNotFound(err),
		apierrors.IsMethodNotSupported(err),
		apierrors.IsBadRequest(err),
		apierrors.IsInvalid(err),
		apierrors.IsNotAcceptable(err),
		apierrors.IsUnsupportedMediaType(err):
		return true
	}
	return false
}

// isConnectionError reports whether err means the server could not be
// reached or the connection broke.
func isConnectionError(err error) bool {
	if utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
}

// apiCause returns the API server's own error inside err when there is one:
// the reflector wraps it as "failed to list *v1.PartialObjectMetadata: …",
// which names client-go's decoding type rather than anything the user asked
// for.
func apiCause(err error) error {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if cause, ok := status.(error); ok {
			return cause
		}
	}
	return err
}

// IsForbidden reports whether err is an authorization failure, so callers can
// tell a user their permissions changed.
func IsForbidden(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err)
}

// isWatchForbidden reports whether err is the API server refusing a watch
// for lack of the watch verb. Its Status has no verb field; RBAC's message
// names it: `pods is forbidden: User "u" cannot watch resource "pods" …`.
func isWatchForbidden(err error) bool {
	return apierrors.IsForbidden(err) && strings.Contains(apiCause(err).Error(), " cannot watch ")
}
