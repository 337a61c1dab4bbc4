// Package engines is where a command's engines come from, chosen once
// when the command is built: its own engine (DirectEngines), fed by the API
// server of its kubeconfig or, when the target's warm cache runs, by that
// cache's informers (a warm source, chosen per target by
// EngineOptions.Connect); a warm cache's pool inside the cache process
// (WarmEngines, with the process's ServeEnv, which answers the clients'
// Collect and Stream requests); or --from files and recordings. It holds
// the flags query, watch, capacity and tree share (EngineOptions:
// namespaces, selectors, --sync-timeout, --indexer, --cache), the instant
// their tables' ages count from (Ages), what the API server can select for
// a command's own engine (WithPushdown), the relations the commands'
// indexes read, and CEL flags.
package engines

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// RunningEngine is what query and watch read of a synced engine: a
// *engine.Engine the command started itself, or a lease on a warm cache's
// engines (server.Lease). Shutdown ends the command's use of it.
type RunningEngine interface {
	Types() []*engine.Type
	Failed() <-chan struct{}
	Err() error
	Shutdown()
}

// EngineRequest is what a command asks of its engines.
type EngineRequest struct {
	Mappings []*meta.RESTMapping
	Config   engine.Config
	// Queue, when set, gets every event of the types, the initial list
	// first (a watch).
	Queue *engine.Queue
	// Indexes are every index the command uses, relationship and --indexer
	// ones included (config.Indexes holds only those registered before
	// sync): a warm cache declines what it cannot share.
	Indexes []index.Definition
	// ErrOut is the command's stderr, for a warm cache's staleness warning.
	ErrOut io.Writer
	// Pushdown are selectors the command's own engine may have the API
	// server apply to its lists (withPushdown); a warm cache ignores them.
	Pushdown []index.Selector
}

// engineSource is where a command's engines come from, chosen once when the
// command is built: directEngines, the command's own engine fed by the API
// server of its kubeconfig, or warmEngines, inside a warm cache process,
// the process's source and its pool of shared engines. Everything that
// differs between the two is a method here; commands do not ask which one
// they have.
type engineSource interface {
	// Namespace returns the namespace -n names, or the kubeconfig
	// context's.
	Namespace(configFlags *genericclioptions.ConfigFlags) (string, error)
	// connect returns the source the command's engines read, and the API
	// server URL for messages.
	connect(configFlags *genericclioptions.ConfigFlags) (source engine.Source, server string, err error)
	// resolve maps what the user typed to REST mappings through source.
	resolve(source engine.Source, args []string) ([]*meta.RESTMapping, error)
	// Start returns synced engines of req's types.
	Start(ctx context.Context, source engine.Source, req EngineRequest) (RunningEngine, error)
	// Related returns where the command's relations get the types they
	// read besides its own (owner types, selecting kinds, nodes, pods).
	Related(source engine.Source) engine.RelatedTypes
	// Shared reports whether the command runs in a warm cache process,
	// beside other clients' commands.
	Shared() bool
}

// DirectEngines starts an engine of the command's own, as every command
// without a warm cache does.
type DirectEngines struct{}

func (DirectEngines) Namespace(configFlags *genericclioptions.ConfigFlags) (string, error) {
	ns, _, err := configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("reading the namespace from kubeconfig: %w", err)
	}
	return ns, nil
}

func (DirectEngines) connect(configFlags *genericclioptions.ConfigFlags) (engine.Source, string, error) {
	restConfig, err := configFlags.ToRESTConfig()
	if err != nil {
		return nil, "", err
	}
	mapper, err := configFlags.ToRESTMapper()
	if err != nil {
		return nil, "", err
	}
	// The stable built-in types map without discovery: a query of pods
	// reads no discovery document before its one list.
	source, err := engine.NewAPIServer(restConfig, engine.BuiltinsFirst(mapper), version.UserAgent())
	if err != nil {
		return nil, "", err
	}
	return source, restConfig.Host, nil
}

func (DirectEngines) resolve(source engine.Source, args []string) ([]*meta.RESTMapping, error) {
	return engine.Resolve(source.RESTMapper(), args)
}

func (DirectEngines) Start(ctx context.Context, source engine.Source, req EngineRequest) (RunningEngine, error) {
	eng, err := engine.New(source, req.Mappings, WithPushdown(req.Config, req.Mappings, req.Pushdown))
	if err != nil {
		return nil, err
	}
	if req.Queue != nil {
		if err := eng.SendEvents(req.Queue); err != nil {
			eng.Shutdown()
			return nil, err
		}
	}
	if err := StartEngine(ctx, eng); err != nil {
		eng.Shutdown()
		return nil, err
	}
	return eng, nil
}

// Related starts an engine of the command's own per related type.
func (DirectEngines) Related(source engine.Source) engine.RelatedTypes {
	return engine.SourceTypes{Source: source}
}

func (DirectEngines) Shared() bool { return false }

// RunContext returns ctx ended also after timeout (when positive), when
// the events of a finished --from source are all taken (SourceDrained),
// and when eng fails for good after sync (a watch the user may not make),
// so that a command streaming eng's changes ends and says why; the caller
// calls cancel.
func RunContext(ctx context.Context, eng RunningEngine, timeout time.Duration) (context.Context, context.CancelFunc) {
	cancelTimeout := context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancelTimeout = context.WithTimeout(ctx, timeout)
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-eng.Failed():
			cancel()
		case <-SourceDrained(eng):
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(); cancelTimeout() }
}
