package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// probeTimeout bounds the probe of one context.
const probeTimeout = 5 * time.Second

// ContextsInput is the contexts tool's arguments.
type ContextsInput struct {
	Context string `json:"context,omitempty" jsonschema:"which contexts: a name, names joined by commas, a pattern such as prod-*, or all; empty is all"`
}

// ContextsOutput lists kubeconfig contexts and whether each answers.
type ContextsOutput struct {
	Current  string        `json:"current,omitempty"`
	Contexts []ContextInfo `json:"contexts"`
	Cut      *Cut          `json:"cut,omitempty"`
}

// ContextInfo is one context: its names from the kubeconfig (never its
// credentials or server certificates) and whether its API server answered
// a version request.
type ContextInfo struct {
	Name      string `json:"name"`
	Cluster   string `json:"cluster,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Reachable bool   `json:"reachable"`
	// ServerVersion is the API server's version, when reachable.
	ServerVersion string `json:"serverVersion,omitempty"`
	// Error says why the context is not reachable.
	Error string `json:"error,omitempty"`
}

// contexts answers the contexts tool: every selected context is probed
// on its own, in parallel, each within probeTimeout.
func (s *Server) contexts(ctx context.Context, _ *sdk.CallToolRequest, in ContextsInput) (*sdk.CallToolResult, ContextsOutput, error) {
	value := in.Context
	if value == "" {
		value = allContexts
	}
	ts, err := s.selectContexts(value)
	if err != nil {
		if in.Context != "" {
			return nil, ContextsOutput{}, err
		}
		// A kubeconfig without contexts (--server and --token): the one
		// identity the server was started with.
		if ts, err = s.selectContexts(""); err != nil {
			return nil, ContextsOutput{}, err
		}
	}
	out := ContextsOutput{}
	raw, rawErr := s.opts.ConfigFlags.ToRawKubeConfigLoader().RawConfig()
	if rawErr == nil {
		out.Current = raw.CurrentContext
	}
	infos := eachContext(ctx, ts, func(ctx context.Context, t targets.Target) ContextInfo {
		info := ContextInfo{Name: t.Name}
		if c, ok := raw.Contexts[t.Name]; rawErr == nil && ok {
			info.Cluster, info.Namespace = c.Cluster, c.Namespace
		}
		version, err := probe(t)
		if err != nil {
			info.Error = err.Error()
		} else {
			info.Reachable, info.ServerVersion = true, version
		}
		return info
	}, func(name string, err error) ContextInfo {
		return ContextInfo{Name: name, Error: err.Error()}
	})
	build := func(k int) (ContextsOutput, string) {
		o := out
		o.Contexts = infos[:k]
		if k < len(infos) {
			o.Cut = newCut(s.opts.MaxResultTokens, k, len(infos), "contexts")
		}
		return o, contextsText(o)
	}
	k := fitBudget(s.opts.MaxResultTokens, len(infos), func(k int) int { return resultSize(build(k)) })
	out, text := build(k)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// probe asks t's API server for its version (a GET of /version).
func probe(t targets.Target) (string, error) {
	config, err := t.ConfigFlags.ToRESTConfig()
	if err != nil {
		return "", fmt.Errorf("reading the kubeconfig: %w", err)
	}
	config = rest.CopyConfig(config)
	config.Timeout = probeTimeout
	client, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return "", err
	}
	v, err := client.ServerVersion()
	if err != nil {
		return "", err
	}
	return v.GitVersion, nil
}

// contextsText is the compact text form of out.
func contextsText(out ContextsOutput) string {
	var b strings.Builder
	for _, c := range out.Contexts {
		mark := ""
		if c.Name == out.Current {
			mark = " (current)"
		}
		if c.Reachable {
			fmt.Fprintf(&b, "%s%s: reachable, %s\n", c.Name, mark, c.ServerVersion)
		} else {
			fmt.Fprintf(&b, "%s%s: unreachable: %s\n", c.Name, mark, c.Error)
		}
	}
	if out.Cut != nil {
		fmt.Fprintf(&b, "CUT: %s\n", out.Cut.Reason)
	}
	return b.String()
}
