package mcp

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
)

// DefaultMaxResultTokens is the default budget of one tool result.
const DefaultMaxResultTokens = 20000

// Options configure a Server.
type Options struct {
	// ConfigFlags are the kubeconfig flags the server was started with:
	// the default context, and the kubeconfig whose contexts a tool's
	// context argument selects from.
	ConfigFlags *genericclioptions.ConfigFlags
	// MaxResultTokens bounds every tool result, counted as bytes/4.
	MaxResultTokens int
	// SyncTimeout bounds a query's discovery and its informers' first sync.
	SyncTimeout time.Duration
	// EvictAfter is how long a type's informers live without a call that
	// reads them; 0 keeps them until the server ends.
	EvictAfter time.Duration
	// Version names the server to clients.
	Version string
	// Recordings are the recordings (kubectl informer record --to FILE)
	// the history and at tools read; without any, those tools are not
	// offered. CheckRecordings checks them.
	Recordings []string
}

// Server is the MCP server: its tools and the warm engines of the
// contexts they have asked about. It is safe for concurrent calls.
type Server struct {
	opts Options
	mcp  *sdk.Server

	mu    sync.Mutex
	flags map[string]*genericclioptions.ConfigFlags
	envs  map[string]*engines.ServeEnv
}

// New returns a server with its tools registered. It reads no kubeconfig
// and no cluster.
func New(opts Options) *Server {
	if opts.MaxResultTokens <= 0 {
		opts.MaxResultTokens = DefaultMaxResultTokens
	}
	if opts.SyncTimeout <= 0 {
		opts.SyncTimeout = 30 * time.Second
	}
	s := &Server{opts: opts, flags: map[string]*genericclioptions.ConfigFlags{}, envs: map[string]*engines.ServeEnv{}}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "kubectl-informer", Version: opts.Version}, &sdk.ServerOptions{Instructions: instructions})
	s.addTools()
	return s
}

// instructions tell a model how to ask.
const instructions = `Read-only answers about Kubernetes clusters from warm informer caches.
Ask for counts and groups (query with groupBy, sums) rather than lists; narrow
with namespace, an index selector (see indexers) or a CEL filter. Every tool
takes context: a kubeconfig context name, a pattern, "all", or empty for the
current one. Secrets are served without their values.`

// Run serves one client over t until the client leaves or ctx ends, then
// stops every informer.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	defer s.shutdownEnvs()
	return s.mcp.Run(ctx, t)
}

// Connect connects the server to one client over t, for tests (an
// in-memory transport); Close stops the informers afterwards.
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	return s.mcp.Connect(ctx, t, nil)
}

// Close stops every context's informers.
func (s *Server) Close() { s.shutdownEnvs() }

// ServeHTTP serves streamable HTTP on addr, a loopback HOST:PORT or a
// unix:PATH socket that only its owner may use (CheckAddress), until ctx
// ends, then stops every informer. A request whose Host is not a loopback
// name (DNS rebinding) or that a browser marks cross-origin is refused.
// listening, if set, is called with the URL clients connect to once it
// listens (for a socket, unix:PATH).
func (s *Server) ServeHTTP(ctx context.Context, addr string, listening func(addr string)) error {
	defer s.shutdownEnvs()
	if err := CheckAddress(addr); err != nil {
		return err
	}
	ln, url, err := listen(addr)
	if err != nil {
		return err
	}
	handler := http.NewCrossOriginProtection().Handler(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, nil))
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	if listening != nil {
		listening(url)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
