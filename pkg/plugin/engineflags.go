package plugin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// engineOptions are the flags query and watch share: what to cache, and how
// long to wait for it.
type engineOptions struct {
	configFlags *genericclioptions.ConfigFlags

	AllNamespaces bool
	LabelSelector string
	FieldSelector string
	SyncTimeout   time.Duration
	Indexers      []string

	// Cache is --cache: auto (use a running warm cache of this identity)
	// or off. MaxStaleness is --max-staleness. Only query and watch have them.
	Cache        string
	MaxStaleness time.Duration

	// env is set when the command runs inside a warm cache process: the
	// process's clients and engine pool instead of the command's own.
	env *serveEnv

	// Set by complete.
	namespaces []string // none means all namespaces
	server     string   // the API server URL, for messages
	indexSet   *index.Set
	clients    *cache.Clients
	config     cache.Config // what query and watch share; each adds its own
}

func (o *engineOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, cache the requested types across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	cmd.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) to filter on, sent to the server, supports '=', '==', '!=', 'in', 'notin'. (e.g. -l key1=value1,key2=value2)")
	cmd.Flags().StringVar(&o.FieldSelector, "field-selector", "", "Selector (field query) to filter on, sent to the server, supports '=', '==', and '!='. (e.g. --field-selector spec.nodeName=worker-1)")
	cmd.Flags().DurationVar(&o.SyncTimeout, "sync-timeout", 60*time.Second, "How long to wait for API discovery, and then for every cache to sync, before giving up.")
	cmd.Flags().StringArrayVar(&o.Indexers, "indexer", nil, "Define an index NAME=EXPR (repeatable) from a JSONPath, e.g. img='{.spec.containers[*].image}', or from a CEL expression (a computed index) that returns a value or a list, e.g. restarts='object.status.containerStatuses.map(s, s.restartCount).sum()'. "+
		"EXPR is JSONPath if it starts with '{' or '.'; otherwise CEL if it names the variable object or now outside quotes; otherwise JSONPath (spec.nodeName).")
}

// addCacheFlags adds --cache and --max-staleness (query and watch).
func (o *engineOptions) addCacheFlags(cmd *cobra.Command) {
	o.Cache = "auto"
	cmd.Flags().StringVar(&o.Cache, "cache", o.Cache, "Use a warm cache (kubectl informer cache start): auto uses the running cache of this identity (server, user, impersonation), if any, and answers directly otherwise; off always answers directly.")
	cmd.Flags().DurationVar(&o.MaxStaleness, "max-staleness", 0, "With a warm cache: if the watch of a type the answer reads has been failing for longer than this, answer directly from the API server instead (0: answer from the cache, with a warning that it may be stale).")
}

// engines returns where the command gets its engine: the warm cache's pool
// inside a cache process, its own engine otherwise.
func (o *engineOptions) engines() engineSource {
	if o.env != nil {
		return warmEngines{pool: o.env.pool, maxStaleness: o.MaxStaleness, warnings: o.env.warnings, printWarning: o.env.printWarning}
	}
	return directEngines{}
}

// parseIndexers builds the index set from --indexer.
func (o *engineOptions) parseIndexers() error {
	var custom []index.Custom
	for _, s := range o.Indexers {
		c, err := index.ParseCustom(s)
		if err != nil {
			return err
		}
		custom = append(custom, c)
	}
	set, err := index.NewSet(custom...)
	if err != nil {
		return err
	}
	o.indexSet = set
	return nil
}

// validate checks the selector flags without I/O.
func (o *engineOptions) validate() error {
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
	return nil
}

// complete resolves the namespace, builds the clients from kubeconfig, and
// builds the index set and the engine configuration query and watch share.
func (o *engineOptions) complete() error {
	ns, err := o.namespace()
	if err != nil {
		return err
	}
	o.namespaces = nil
	if !o.AllNamespaces {
		if o.namespaces, err = splitNamespaces(ns); err != nil {
			return err
		}
	}
	if o.env != nil {
		o.server, o.clients = o.env.server, o.env.clients
	} else {
		restConfig, err := o.configFlags.ToRESTConfig()
		if err != nil {
			return err
		}
		o.server = restConfig.Host
		mapper, err := o.configFlags.ToRESTMapper()
		if err != nil {
			return err
		}
		o.clients, err = cache.NewClients(restConfig, mapper, version.UserAgent())
		if err != nil {
			return err
		}
	}
	o.config = cache.Config{
		Namespaces:    o.namespaces,
		LabelSelector: o.LabelSelector,
		FieldSelector: o.FieldSelector,
		SyncTimeout:   o.SyncTimeout,
	}
	return o.parseIndexers()
}

// namespace returns -n, or the kubeconfig context's namespace; inside a
// cache process, the -n the client made explicit, without reading a
// kubeconfig.
func (o *engineOptions) namespace() (string, error) {
	if o.env != nil && o.configFlags.Namespace != nil && *o.configFlags.Namespace != "" {
		return *o.configFlags.Namespace, nil
	}
	ns, _, err := o.configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("reading the namespace from kubeconfig: %w", err)
	}
	return ns, nil
}

// resolve maps the TYPE[,TYPE...] argument to REST mappings through
// discovery, giving up after --sync-timeout: client-go retries discovery of
// a server that accepts connections but does not answer for minutes.
func (o *engineOptions) resolve(typeArg string) ([]*meta.RESTMapping, error) {
	type result struct {
		mappings []*meta.RESTMapping
		err      error
	}
	done := make(chan result, 1)
	go func() {
		mappings, err := cache.Resolve(o.clients.Mapper, strings.Split(typeArg, ","))
		if err != nil && o.env != nil {
			// A warm cache's discovery is as old as the cache: a type
			// created since (a new CRD) is found after a fresh discovery,
			// as a command of its own would find it.
			if mapper, ok := o.clients.Mapper.(meta.ResettableRESTMapper); ok {
				mapper.Reset()
				mappings, err = cache.Resolve(o.clients.Mapper, strings.Split(typeArg, ","))
			}
		}
		done <- result{mappings, err}
	}()
	timer := time.NewTimer(o.SyncTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.mappings, r.err
	case <-timer.C:
		return nil, fmt.Errorf("timed out after %s waiting for API discovery from %s to resolve %q (raise --sync-timeout for a slow server)", o.SyncTimeout, o.server, typeArg)
	}
}

// startEngine starts engine and waits for sync; when the sync deadline
// passes it names the flag that raises it.
func startEngine(ctx context.Context, engine *cache.Engine) error {
	err := engine.Start(ctx)
	var timeout *cache.SyncTimeoutError
	if errors.As(err, &timeout) {
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
