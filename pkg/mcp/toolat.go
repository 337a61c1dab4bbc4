package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-informer/kubectl-informer/pkg/offline"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

// AtInput is the at tool's arguments: a query of a recording as the
// cluster was at an instant, as `kubectl informer query --from REC --at`.
type AtInput struct {
	Recording string `json:"recording,omitempty" jsonschema:"the recording to read, by its file name; empty when the server has one"`
	At        string `json:"at,omitempty" jsonschema:"the instant: an RFC 3339 time (2026-11-26T01:40:00Z) or a negative duration before the recording's end (-10m); empty is the recording's end"`
	Question
}

// at answers the at tool: the query code over the recording's state at
// the instant, which it reads for the call; Secrets without their values,
// ages as of the instant. Its one answer is named for the recording and
// the instant.
func (s *Server) at(ctx context.Context, _ *sdk.CallToolRequest, in AtInput) (*sdk.CallToolResult, QueryOutput, error) {
	if err := in.check(); err != nil {
		return nil, QueryOutput{}, err
	}
	path, err := s.recordingOf(in.Recording)
	if err != nil {
		return nil, QueryOutput{}, err
	}
	span, err := offline.ReadSpan(path)
	if err != nil {
		return nil, QueryOutput{}, err
	}
	instant, warnings := span.End, []string(nil)
	if in.At != "" {
		if instant, err = engines.ResolveInstant("at", in.At, span); err != nil {
			return nil, QueryOutput{}, err
		}
		if instant.After(span.End) {
			warnings = append(warnings, fmt.Sprintf("at %s is after the last event of the recording, at %s: the answer is the state then", in.At, span.End.UTC().Format(time.RFC3339Nano)))
		}
	}
	if span.Truncated {
		warnings = append(warnings, "the recording was cut off after its last complete event; it answers up to there")
	}
	source, err := offline.Recorded(path, instant)
	if err != nil {
		return nil, QueryOutput{}, err
	}
	src := valuelessSecrets{Source: source}
	env := &engines.ServeEnv{Server: "recording " + path, Source: src, Pool: server.NewPool(src, server.PoolOptions{}),
		Warnings: server.NewWarnings(), At: instant}
	defer env.Pool.Shutdown()
	namespace, scope := in.Namespace, "namespace "+in.Namespace
	switch {
	case in.AllNamespaces:
		namespace, scope = "", "all namespaces"
	case namespace == "":
		namespace, scope = "default", "namespace default (a recording has no context namespace; set namespace or allNamespaces to widen)"
	}
	var a QueryAnswer
	a.Context = fmt.Sprintf("recording %s at %s", filepath.Base(path), instant.UTC().Format(time.RFC3339Nano))
	a = answerQuestion(ctx, a, namespace, scope, in.Question, func(ctx context.Context, q protocol.Query) (protocol.Answer, string, string, error) {
		answer, stderr, _, err := collectOwn(ctx, env, q)
		return answer, stderr, "the recording", err
	}, s.opts.SyncTimeout)
	a.Warnings = append(warnings, a.Warnings...)
	return toolResult(s, []QueryAnswer{a}, "rows", queryText)
}
