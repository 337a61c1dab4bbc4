package query

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// A warm cache's Collect declines a question that reads usage: the
// command reads the metrics API itself.
func TestCollectDeclinesUsage(t *testing.T) {
	for _, q := range []protocol.Query{
		{Types: "pods", AllNamespaces: true, GroupBy: []string{"namespace"}, Sums: []string{"usage.cpu"}},
		{Types: "pods", AllNamespaces: true, Filter: `has(usage.cpu)`},
	} {
		var stdout, stderr bytes.Buffer
		outcome := CollectHandler(&engines.ServeEnv{})(context.Background(), protocol.Request{Kind: protocol.Collect, Query: &q}, &stdout, &stderr)
		if outcome.Fallback == nil || !strings.Contains(outcome.Fallback.Reason, "metrics API") {
			t.Errorf("Collect(%+v) = %+v, want a fallback naming the metrics API", q, outcome)
		}
	}
}
