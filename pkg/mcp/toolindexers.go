package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// IndexersInput is the indexers tool's arguments.
type IndexersInput struct {
	Context string `json:"context,omitempty" jsonschema:"kubeconfig context; the built-in indexes are the same in every context, so it only echoes back"`
}

// IndexersOutput lists the built-in indexes a query's index, groupBy and
// sortBy can name.
type IndexersOutput struct {
	Context string  `json:"context,omitempty"`
	Indexes []Index `json:"indexes"`
	// Usage says how a query uses them.
	Usage string `json:"usage"`
}

// Index is one built-in index family.
type Index struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

const indexUsage = "select with index [\"NAME=VALUE\"] (e.g. node=worker-1, label:app=web, owner-root=Deployment/web), " +
	"count with groupBy [\"NAME\"]; KEY in a name stands for a label or annotation key"

// indexers answers the indexers tool; it reads no cluster.
func (s *Server) indexers(_ context.Context, _ *sdk.CallToolRequest, in IndexersInput) (*sdk.CallToolResult, IndexersOutput, error) {
	out := IndexersOutput{Context: in.Context, Usage: indexUsage}
	var b strings.Builder
	for _, bi := range index.Builtins() {
		out.Indexes = append(out.Indexes, Index{Name: bi.Name, Description: bi.Description})
		fmt.Fprintf(&b, "%s: %s\n", bi.Name, bi.Description)
	}
	b.WriteString(indexUsage + "\n")
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}, out, nil
}
