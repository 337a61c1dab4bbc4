// Package mcp is the mcp command: kubectl informer as a Model Context
// Protocol server for agents, over stdio or streamable HTTP on a loopback
// address. The server itself is pkg/mcp; this package binds its flags.
package mcp

import (
	"context"
	"fmt"
	"io"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
	mcpserver "github.com/kubectl-informer/kubectl-informer/pkg/mcp"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
)

// MCPOptions are the mcp command's flags.
type MCPOptions struct {
	// HTTP is --http: serve streamable HTTP on this loopback address or
	// unix socket (unix:PATH) instead of stdio.
	HTTP            string
	MaxResultTokens int
	SyncTimeout     time.Duration
	EvictAfter      time.Duration
	// Recordings are --recording: the recordings the history and at
	// tools read.
	Recordings []string

	configFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams
}

// NewMCPOptions returns the mcp command's defaults.
func NewMCPOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *MCPOptions {
	return &MCPOptions{MaxResultTokens: mcpserver.DefaultMaxResultTokens, SyncTimeout: 30 * time.Second, EvictAfter: 30 * time.Minute,
		configFlags: configFlags, IOStreams: streams}
}

// NewCmdMCP returns the mcp command.
func NewCmdMCP(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewMCPOptions(configFlags, streams)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve agents over the Model Context Protocol (stdio, or --http on loopback)",
		Long: `mcp serves the Model Context Protocol on stdin and stdout, as MCP clients
start servers, or with --http on a loopback address or a unix socket
(unix:PATH, only its owner may connect). Its tools (query, capacity, tree,
events, wait, contexts, types, indexers) answer from informers kept warm in
this process, one pool per kubeconfig context, started by the first call
that asks; with --recording, history and at answer from recordings. It only
gets, lists and watches; Secrets never carry their values; every result fits
--max-result-tokens (counted as bytes/4) and says when it was cut.`,
		Example: `  # In an MCP client's configuration: command kubectl, args ["informer", "mcp"]
  kubectl informer mcp

  # With a recording: the history and at tools answer about the past
  kubectl informer mcp --recording rollout.rec

  # Streamable HTTP for clients that connect to a URL
  kubectl informer mcp --http 127.0.0.1:8765

  # The same on a unix socket only you may connect to
  kubectl informer mcp --http unix:$XDG_RUNTIME_DIR/kubectl-informer-mcp.sock`,
		Args: cobra.NoArgs,
		RunE: cmdutil.RunE(o),
	}
	cmd.Flags().StringVar(&o.HTTP, "http", "", "Serve streamable HTTP on this loopback address (127.0.0.1:PORT, [::1]:PORT, localhost:PORT) or unix socket (unix:PATH, owner-only) instead of stdio.")
	cmd.Flags().IntVar(&o.MaxResultTokens, "max-result-tokens", o.MaxResultTokens, "The budget of one tool result, counted as bytes/4; a result cut to fit says so.")
	cmd.Flags().DurationVar(&o.SyncTimeout, "sync-timeout", o.SyncTimeout, "How long a query may wait for discovery and its informers' first sync.")
	cmd.Flags().StringArrayVar(&o.Recordings, "recording", nil, "A recording (kubectl informer record --to FILE) for the history and at tools to read (repeatable); without one those tools are not offered.")
	cmd.Flags().DurationVar(&o.EvictAfter, "evict-after", o.EvictAfter, "Shut down a type's informers after this long without a call that reads them (0: never).")
	return cmd
}

// Complete has nothing to build: the server reads the kubeconfig when a
// tool first asks about a context.
func (o *MCPOptions) Complete(*cobra.Command, []string) error { return nil }

// Validate checks the flags.
func (o *MCPOptions) Validate() error {
	if o.MaxResultTokens < 100 {
		return fmt.Errorf("--max-result-tokens must be at least 100, got %d", o.MaxResultTokens)
	}
	if o.SyncTimeout <= 0 {
		return fmt.Errorf("--sync-timeout must be positive, got %s", o.SyncTimeout)
	}
	if o.EvictAfter < 0 {
		return fmt.Errorf("--evict-after must not be negative, got %s", o.EvictAfter)
	}
	if o.HTTP != "" {
		if err := mcpserver.CheckAddress(o.HTTP); err != nil {
			return err
		}
	}
	return mcpserver.CheckRecordings(o.Recordings)
}

// Run serves until the client leaves (stdio) or the process is
// interrupted.
func (o *MCPOptions) Run(ctx context.Context) error {
	ctx, stop := cmdutil.Interruptible(ctx)
	defer stop()
	s := mcpserver.New(mcpserver.Options{ConfigFlags: o.configFlags, MaxResultTokens: o.MaxResultTokens,
		SyncTimeout: o.SyncTimeout, EvictAfter: o.EvictAfter, Version: version.Version, Recordings: o.Recordings})
	if o.HTTP != "" {
		return s.ServeHTTP(ctx, o.HTTP, func(addr string) {
			fmt.Fprintf(o.ErrOut, "serving MCP over streamable HTTP on %s\n", addr)
		})
	}
	return s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(o.In), Writer: nopWriteCloser{o.Out}})
}

// nopWriteCloser is a writer whose Close does nothing: the command's
// stdout is not its to close.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
