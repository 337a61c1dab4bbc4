package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// TypesInput is the types tool's arguments.
type TypesInput struct {
	Context string `json:"context,omitempty" jsonschema:"kubeconfig context: a name, names joined by commas, a pattern, or all; empty is the current context"`
}

// TypesOutput lists, per context, the types a query can name.
type TypesOutput = ContextAnswers[TypesAnswer]

// TypesAnswer is one context's types, or why it has none.
type TypesAnswer struct {
	ContextResult
	// Types are the listable and watchable resources discovery serves, as
	// a query names them: resource for the core group, resource.group
	// otherwise, in the server's preferred version.
	Types []string `json:"types,omitempty"`
	// TotalTypes is how many there are before the budget.
	TotalTypes int      `json:"totalTypes"`
	Warnings   []string `json:"warnings,omitempty"`
}

// types answers the types tool from each context's discovery.
func (s *Server) types(ctx context.Context, _ *sdk.CallToolRequest, in TypesInput) (*sdk.CallToolResult, TypesOutput, error) {
	return answerContexts(ctx, s, in.Context, "types", func(ctx context.Context, t targets.Target) TypesAnswer {
		a := TypesAnswer{}
		names, err := servedTypes(t)
		var partial *discovery.ErrGroupDiscoveryFailed
		switch {
		case err != nil && len(names) > 0 && errors.As(err, &partial):
			a.Warnings = append(a.Warnings, err.Error())
		case err != nil:
			a.Error = err.Error()
			return a
		}
		a.Types, a.TotalTypes = names, len(names)
		return a
	}, typesText)
}

func (a TypesAnswer) size() (longest, count int) { return len(a.Types), len(a.Types) }

func (a TypesAnswer) take(k int) TypesAnswer {
	a.Types = a.Types[:min(k, len(a.Types))]
	return a
}

// servedTypes returns the names of the listable and watchable resources
// t's discovery serves, sorted; subresources are left out. A partial
// discovery (an aggregated API down) returns what it found and its error.
func servedTypes(t targets.Target) ([]string, error) {
	client, err := t.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	lists, err := client.ServerPreferredResources()
	var names []string
	for _, list := range lists {
		gv, gvErr := schema.ParseGroupVersion(list.GroupVersion)
		if gvErr != nil {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "watch") {
				continue
			}
			name := r.Name
			if gv.Group != "" {
				name += "." + gv.Group
			}
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if err != nil {
		return names, fmt.Errorf("discovery: %w", err)
	}
	return names, nil
}

// typesText is the compact text form of out.
func typesText(out TypesOutput) string {
	var b strings.Builder
	for _, a := range out.Contexts {
		if a.Error != "" {
			fmt.Fprintf(&b, "context %s: error: %s\n", a.Context, a.Error)
			continue
		}
		fmt.Fprintf(&b, "context %s (%d types): %s\n", a.Context, a.TotalTypes, strings.Join(a.Types, " "))
		for _, w := range a.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
	}
	if out.Cut != nil {
		fmt.Fprintf(&b, "CUT: %s\n", out.Cut.Reason)
	}
	return b.String()
}
