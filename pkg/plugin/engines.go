package plugin

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

// runningEngine is what query and watch read of a synced engine: a
// *engine.Engine the command started itself, or a lease on a warm cache's
// engines (server.Lease). Shutdown ends the command's use of it.
type runningEngine interface {
	Types() []*engine.Type
	Failed() <-chan struct{}
	Err() error
	Shutdown()
}

// engineRequest is what a command asks of its engines.
type engineRequest struct {
	mappings []*meta.RESTMapping
	config   engine.Config
	// queue, when set, gets every event of the types, the initial list
	// first (a watch).
	queue *engine.Queue
	// indexes are every index the command uses, relationship and --indexer
	// ones included (config.Indexes holds only those registered before
	// sync): a warm cache declines what it cannot share.
	indexes []index.Definition
	// errOut is the command's stderr, for a warm cache's staleness warning.
	errOut io.Writer
	// pushdown are selectors the command's own engine may have the API
	// server apply to its lists (withPushdown); a warm cache ignores them.
	pushdown []index.Selector
}

// engineSource is where a command's engines come from, chosen once when the
// command is built: directEngines, the command's own engine fed by the API
// server of its kubeconfig, or warmEngines, inside a warm cache process,
// the process's source and its pool of shared engines. Everything that
// differs between the two is a method here; commands do not ask which one
// they have.
type engineSource interface {
	// namespace returns the namespace -n names, or the kubeconfig
	// context's.
	namespace(configFlags *genericclioptions.ConfigFlags) (string, error)
	// connect returns the source the command's engines read, and the API
	// server URL for messages.
	connect(configFlags *genericclioptions.ConfigFlags) (source engine.Source, server string, err error)
	// resolve maps what the user typed to REST mappings through source.
	resolve(source engine.Source, args []string) ([]*meta.RESTMapping, error)
	// start returns synced engines of req's types.
	start(ctx context.Context, source engine.Source, req engineRequest) (runningEngine, error)
	// related returns where the command's relations get the types they
	// read besides its own (owner types, selecting kinds, nodes, pods).
	related(source engine.Source) engine.RelatedTypes
	// shared reports whether the command runs in a warm cache process,
	// beside other clients' commands.
	shared() bool
	// location is the time zone of the user's terminal.
	location() *time.Location
}

// directEngines starts an engine of the command's own, as every command
// without a warm cache does.
type directEngines struct{}

func (directEngines) namespace(configFlags *genericclioptions.ConfigFlags) (string, error) {
	ns, _, err := configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("reading the namespace from kubeconfig: %w", err)
	}
	return ns, nil
}

func (directEngines) connect(configFlags *genericclioptions.ConfigFlags) (engine.Source, string, error) {
	restConfig, err := configFlags.ToRESTConfig()
	if err != nil {
		return nil, "", err
	}
	mapper, err := configFlags.ToRESTMapper()
	if err != nil {
		return nil, "", err
	}
	source, err := engine.NewAPIServer(restConfig, mapper, version.UserAgent())
	if err != nil {
		return nil, "", err
	}
	return source, restConfig.Host, nil
}

func (directEngines) resolve(source engine.Source, args []string) ([]*meta.RESTMapping, error) {
	return engine.Resolve(source.RESTMapper(), args)
}

func (directEngines) start(ctx context.Context, source engine.Source, req engineRequest) (runningEngine, error) {
	eng, err := engine.New(source, req.mappings, withPushdown(req.config, req.mappings, req.pushdown))
	if err != nil {
		return nil, err
	}
	if req.queue != nil {
		if err := eng.SendEvents(req.queue); err != nil {
			eng.Shutdown()
			return nil, err
		}
	}
	if err := startEngine(ctx, eng); err != nil {
		eng.Shutdown()
		return nil, err
	}
	return eng, nil
}

// related starts an engine of the command's own per related type.
func (directEngines) related(source engine.Source) engine.RelatedTypes {
	return engine.SourceTypes{Source: source}
}

func (directEngines) shared() bool { return false }

func (directEngines) location() *time.Location { return time.Local }

// enginesFor returns the engine source of a command: warm engines inside a
// cache process (env set), which read maxStaleness (the command's
// --max-staleness) when the command starts; direct ones otherwise.
func enginesFor(env *serveEnv, maxStaleness *time.Duration) engineSource {
	if env != nil {
		return warmEngines{env: env, maxStaleness: maxStaleness}
	}
	return directEngines{}
}
