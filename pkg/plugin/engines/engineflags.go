package engines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
)

// EngineOptions are the flags query and watch share: what to cache, and how
// long to wait for it.
type EngineOptions struct {
	ConfigFlags *genericclioptions.ConfigFlags

	AllNamespaces bool
	LabelSelector string
	FieldSelector string
	SyncTimeout   time.Duration
	Indexers      []string

	// Cache is --cache: auto (use a running warm cache of this identity)
	// or off. MaxStaleness is --max-staleness. Only query and watch have them.
	Cache        string
	MaxStaleness time.Duration

	// Engines is where the command's engines come from, chosen when the
	// command is built (see engineSource).
	Engines engineSource

	// now is --now, not yet parsed: the instant relative times count
	// from (Ages).
	now string

	// Notes gets the notes of the target's warm cache (why it is not
	// used), as the command's stderr; os.Stderr when nil.
	Notes io.Writer
	// Collects is set by a command that asks its target's warm cache for
	// its answer (a one-shot query): Connect keeps the connection it found
	// open for it (WarmConn), and makes no source of the cache's informers.
	Collects bool

	// Set by complete.
	Namespaces []string // none means all namespaces
	// WarmSocket is the socket of the target's warm cache when one runs
	// and is used, "" otherwise: Source reads its informers. WarmConn,
	// with Collects, is the connection to it, which the caller closes
	// (ReadDirectly does).
	WarmSocket string
	WarmConn   *client.Conn
	Server     string // the API server URL, for messages
	IndexSet   *index.Set
	Source     engine.Source
	Config     engine.Config // what query and watch share; each adds its own
}

func (o *EngineOptions) AddFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, cache the requested types across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	cmd.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) to filter on, sent to the server, supports '=', '==', '!=', 'in', 'notin'. (e.g. -l key1=value1,key2=value2)")
	cmd.Flags().StringVar(&o.FieldSelector, "field-selector", "", "Selector (field query) to filter on, sent to the server, supports '=', '==', and '!='. (e.g. --field-selector spec.nodeName=worker-1)")
	cmd.Flags().DurationVar(&o.SyncTimeout, "sync-timeout", 60*time.Second, "How long to wait for API discovery, and then for every cache to sync, before giving up.")
	cmd.Flags().StringArrayVar(&o.Indexers, "indexer", nil, "Define an index NAME=EXPR (repeatable) from a JSONPath, e.g. img='{.spec.containers[*].image}', or from a CEL expression (a computed index) that returns a value or a list, e.g. restarts='object.status.containerStatuses.map(s, s.restartCount).sum()'. "+
		"EXPR is JSONPath if it starts with '{' or '.'; otherwise CEL if it names the variable object or now outside quotes; otherwise JSONPath (spec.nodeName).")
}

// AddCacheFlags adds --cache and --max-staleness (the commands that read
// a target through its warm cache).
func (o *EngineOptions) AddCacheFlags(cmd *cobra.Command) {
	o.Cache = "auto"
	cmd.Flags().StringVar(&o.Cache, "cache", o.Cache, "Use a warm cache (kubectl informer cache start): auto uses the running cache of this identity (server, user, impersonation), if any, and answers directly otherwise; off always answers directly.")
	cmd.Flags().DurationVar(&o.MaxStaleness, "max-staleness", 0, "With a warm cache: if the watch of a type the answer reads has been failing for longer than this, answer directly from the API server instead (0: answer from the cache, with a warning that it may be stale).")
}

// Validate checks the selector flags without I/O.
func (o *EngineOptions) Validate() error {
	if o.LabelSelector != "" {
		if _, err := labels.Parse(o.LabelSelector); err != nil {
			return fmt.Errorf("invalid --selector %q: %w", o.LabelSelector, err)
		}
	}
	if o.FieldSelector != "" {
		if _, err := fields.ParseSelector(o.FieldSelector); err != nil {
			return fmt.Errorf("invalid --field-selector %q: %w", o.FieldSelector, err)
		}
	}
	if o.Cache != "" && o.Cache != "auto" && o.Cache != "off" {
		return fmt.Errorf("--cache must be auto or off, got %q", o.Cache)
	}
	if o.MaxStaleness < 0 {
		return fmt.Errorf("--max-staleness must not be negative, got %s", o.MaxStaleness)
	}
	if o.SyncTimeout <= 0 {
		return fmt.Errorf("--sync-timeout must be positive, got %s", o.SyncTimeout)
	}
	return o.validateNow()
}

// CompleteFlags builds what the flags alone decide, the same for every
// target: the index set of --indexer and the engine configuration query
// and watch share (without the namespaces, which are the target's). It
// sends no request.
func (o *EngineOptions) CompleteFlags() error {
	o.Config = engine.Config{
		LabelSelector: o.LabelSelector,
		FieldSelector: o.FieldSelector,
		SyncTimeout:   o.SyncTimeout,
	}
	var custom []index.Custom
	for _, s := range o.Indexers {
		c, err := index.ParseCustom(s)
		if err != nil {
			return err
		}
		custom = append(custom, c)
	}
	var err error
	o.IndexSet, err = index.NewSet(custom...)
	return err
}

// Connect sets what depends on the target configFlags name: its namespace
// (-n, or the kubeconfig context's), the source of the command's engines
// and the API server URL. It is called after CompleteFlags, once per
// target, on that target's own EngineOptions.
func (o *EngineOptions) Connect(configFlags *genericclioptions.ConfigFlags) error {
	o.ConfigFlags = configFlags
	ns, err := o.Engines.Namespace(configFlags)
	if err != nil {
		return err
	}
	o.Namespaces = nil
	if !o.AllNamespaces {
		if o.Namespaces, err = splitNamespaces(ns); err != nil {
			return err
		}
	}
	o.Config.Namespaces = o.Namespaces
	if o.Source, o.Server, err = o.Engines.connect(configFlags); err != nil {
		return err
	}
	errOut := o.Notes
	if errOut == nil {
		errOut = os.Stderr
	}
	conn := o.warmCache(configFlags, errOut)
	switch {
	case conn == nil:
		return nil
	case o.Collects:
		o.WarmConn = conn
		return nil
	}
	conn.Close()
	o.WarmSocket = conn.Socket
	// The cache's informers, and the API server for what it declines.
	restConfig, err := configFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	o.Source = &client.Source{Socket: o.WarmSocket, Direct: o.Source, MaxStaleness: o.MaxStaleness, Warnings: restConfig.WarningHandler, ErrOut: errOut}
	return nil
}

// Resolve maps the TYPE[,TYPE...] argument to REST mappings through
// discovery, giving up after --sync-timeout: client-go retries discovery of
// a server that accepts connections but does not answer for minutes.
func (o *EngineOptions) Resolve(typeArg string) ([]*meta.RESTMapping, error) {
	type result struct {
		mappings []*meta.RESTMapping
		err      error
	}
	r, ok := cmdutil.WithinTimeout(o.SyncTimeout, func() result {
		mappings, err := o.Engines.resolve(o.Source, strings.Split(typeArg, ","))
		return result{mappings, err}
	})
	if !ok {
		return nil, fmt.Errorf("timed out after %s waiting for API discovery from %s to resolve %q (raise --sync-timeout for a slow server)", o.SyncTimeout, o.Server, typeArg)
	}
	return r.mappings, r.err
}

// StartEngine starts engine and waits for sync; when the sync deadline
// passes it names the flag that raises it. A server that answered none of
// the engine's requests is named as such: the stable built-in types map
// without discovery (engine.BuiltinsFirst), so their first list may be the
// first request the server gets.
func StartEngine(ctx context.Context, eng *engine.Engine) error {
	err := eng.Start(ctx)
	var timeout *engine.SyncTimeoutError
	switch {
	case errors.As(err, &timeout) && timeout.Silent != "":
		return fmt.Errorf("timed out after %s waiting for the API server at %s: it answered none of the command's requests (raise --sync-timeout for a slow server)", timeout.Timeout, timeout.Silent)
	case timeout != nil:
		return fmt.Errorf("%w (raise --sync-timeout for very large lists)", err)
	}
	return err
}

// splitNamespaces parses -n: one namespace or several joined by commas,
// each queried and watched on its own (-n a,b).
func splitNamespaces(value string) ([]string, error) {
	var namespaces []string
	seen := map[string]bool{}
	for _, ns := range strings.Split(value, ",") {
		ns = strings.TrimSpace(ns)
		if ns == "" {
			return nil, fmt.Errorf("-n/--namespace %q: empty namespace name", value)
		}
		if errs := validation.ValidateNamespaceName(ns, false); len(errs) > 0 {
			return nil, fmt.Errorf("-n/--namespace %q: invalid namespace %q: %s", value, ns, strings.Join(errs, "; "))
		}
		if !seen[ns] {
			seen[ns] = true
			namespaces = append(namespaces, ns)
		}
	}
	return namespaces, nil
}
