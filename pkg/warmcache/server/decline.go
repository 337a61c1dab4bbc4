package server

import (
	"context"
	"io"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// declineWithout returns h, or, when the server has none, a handler that
// declines every request of that kind, so that the client reads its API
// server itself.
func declineWithout(h Handler, kind string) Handler {
	if h != nil {
		return h
	}
	return func(context.Context, protocol.Request, io.Writer, io.Writer) Outcome {
		return Outcome{Fallback: &protocol.Fallback{Reason: "this cache does not answer " + kind + " requests"}}
	}
}
