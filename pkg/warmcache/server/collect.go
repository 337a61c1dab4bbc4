package server

import (
	"context"
	"io"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// collectHandler returns the handler of Collect requests: h, or, when the
// server has none, one that declines every request, so the client reads
// that context directly.
func collectHandler(h Handler) Handler {
	if h != nil {
		return h
	}
	return func(context.Context, protocol.Request, io.Writer, io.Writer) Outcome {
		return Outcome{Fallback: &protocol.Fallback{Reason: "this cache does not answer collect requests"}}
	}
}
