// Package tree is the tree command: what an object owns, recursively, its
// controllers (--up) or what it uses and what uses it (--refs), for one
// context or several on one path (TreeOptions.Run): the flags are
// completed once, each target only connects. Its trees are drawn by
// pkg/tree; a target's answer is data (treeAnswer).
package tree

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/completion"
	pluginengines "github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/tree"
)

const treeExample = `  # What a Deployment owns: its ReplicaSets and their pods
  kubectl informer tree deployment/web

  # Every Deployment labelled app=web, one tree each
  kubectl informer tree deploy -l app=web

  # From a pod up to its top-most controller
  kubectl informer tree pod/web-5d9c7-x2x4z --up

  # What a ConfigMap is used by, and what a pod refers to
  kubectl informer tree configmap/app-config --refs
  kubectl informer tree pod/web-5d9c7-x2x4z --refs

  # Every object of the tree, for scripts
  kubectl informer tree cronjob/backup -o name`

// defaultTreeTypes are the types tree follows down when --types is not given: those the
// built-in controllers create with ownerReferences.
var defaultTreeTypes = []string{"replicasets.apps", "pods", "jobs.batch", "controllerrevisions.apps", "endpointslices.discovery.k8s.io", "persistentvolumeclaims"}

// TreeOptions are the options of kubectl informer tree.
type TreeOptions struct {
	pluginengines.EngineOptions

	Up        bool
	Refs      bool
	Types     []string
	Output    string
	NoHeaders bool

	genericiooptions.IOStreams

	// contexts are the flags that select contexts besides --context.
	contexts *targets.Flags

	// Set by Complete: the question, the same for every target, and the
	// targets it is asked of.
	roots   []treeRootArg
	out     printing.Output
	targets targets.Set
}

// treeRootArg is one root type as the user named it, with the names asked for (none: every
// object of the type, as -l selects them).
type treeRootArg struct {
	typ   string
	names []string
}

// NewTreeOptions returns TreeOptions with defaults.
func NewTreeOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *TreeOptions {
	return &TreeOptions{EngineOptions: pluginengines.EngineOptions{ConfigFlags: configFlags, Engines: pluginengines.DirectEngines{}}, IOStreams: streams, contexts: &targets.Flags{}}
}

// NewCmdTree returns the tree command.
func NewCmdTree(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewTreeOptions(configFlags, streams)
	cmd := &cobra.Command{
		Use:     "tree TYPE/NAME... | TYPE [NAME...] [flags]",
		Short:   "Show the objects an object owns, recursively, or its owners with --up",
		Long:    "Start shared informers for the root's type and the types it may own, wait until they have synced, and print each root with the objects whose ownerReferences name it, recursively, as a tree; a Service's tree lists the pods its selector selects. With --up, print the chain of controllers from the root up to the top-most one.",
		Example: treeExample,
		Args:    cobra.ArbitraryArgs,
		RunE:    cmdutil.RunE(o),
	}
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, look for the roots across all namespaces.")
	cmd.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) that picks the roots among the objects of TYPE.")
	cmd.Flags().DurationVar(&o.SyncTimeout, "sync-timeout", 60*time.Second, "How long to wait for API discovery, and then for every cache to sync, before giving up.")
	cmd.Flags().BoolVar(&o.Up, "up", false, "Show the chain of controllers from each root up to the top-most one instead of what it owns.")
	cmd.Flags().BoolVar(&o.Refs, "refs", false, "Show what each root refers to and what refers to it (uses, used by: ConfigMaps, Secrets, ServiceAccounts, claims, volumes, classes, Services, role bindings), with the relationship on each edge, instead of what it owns.")
	cmd.Flags().StringSliceVar(&o.Types, "types", nil, "Types to follow down, comma separated (default "+strings.Join(defaultTreeTypes, ",")+").")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format. One of: (name, json, yaml). Default: a tree with READY, STATUS and AGE.")
	cmd.Flags().BoolVar(&o.NoHeaders, "no-headers", false, "Don't print headers.")
	o.contexts = targets.AddFlags(cmd)
	o.EngineOptions.AddCacheFlags(cmd)
	pluginengines.AddFromFlags(cmd, o, &o.EngineOptions, nil)
	o.EngineOptions.AddNowFlag(cmd)
	completion.RegisterCompletions(cmd, configFlags)
	return cmd
}

// Complete names the targets (a set of one without a selection of
// contexts) and completes the question; it sends no request.
func (o *TreeOptions) Complete(cmd *cobra.Command, args []string) error {
	var err error
	if o.targets, err = o.contexts.Targets(o.ConfigFlags, false); err != nil {
		return err
	}
	return o.completeQuestion(args)
}

// completeQuestion parses the arguments and -o and completes the engine
// flags, once for every target.
func (o *TreeOptions) completeQuestion(args []string) error {
	roots, err := parseTreeArgs(args)
	if err != nil {
		return err
	}
	o.roots = roots
	if err := o.CompleteFlags(); err != nil {
		return err
	}
	o.out, err = printing.ParseOutput(o.Output)
	return err
}

// parseTreeArgs reads "TYPE/NAME...", or "TYPE [NAME...]", as kubectl get does.
func parseTreeArgs(args []string) ([]treeRootArg, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("you must specify a root, e.g. 'kubectl informer tree deployment/web'")
	}
	if !strings.Contains(args[0], "/") {
		if strings.Contains(args[0], ",") {
			return nil, fmt.Errorf("tree takes one TYPE, got %q; name several roots as TYPE/NAME", args[0])
		}
		for _, a := range args[1:] {
			if strings.Contains(a, "/") {
				return nil, fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl informer tree TYPE/NAME')")
			}
		}
		return []treeRootArg{{typ: args[0], names: args[1:]}}, nil
	}
	var roots []treeRootArg
	byType := map[string]int{}
	for _, a := range args {
		typ, name, ok := strings.Cut(a, "/")
		if !ok || typ == "" || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("arguments in resource/name form must have a single resource and name, got %q", a)
		}
		i, seen := byType[typ]
		if !seen {
			i = len(roots)
			byType[typ] = i
			roots = append(roots, treeRootArg{typ: typ})
		}
		roots[i].names = append(roots[i].names, name)
	}
	return roots, nil
}

// Validate checks the flags without I/O; its errors name the flag.
func (o *TreeOptions) Validate() error {
	if err := o.EngineOptions.Validate(); err != nil {
		return err
	}
	switch o.out.Format {
	case "", "name", "json", "yaml":
	default:
		return fmt.Errorf("tree prints a tree, or -o name, json or yaml; it cannot print -o %s", o.Output)
	}
	if o.Refs && (o.Up || len(o.Types) > 0) {
		return fmt.Errorf("--refs follows references; it cannot be combined with --up or --types")
	}
	if o.Up && len(o.Types) > 0 {
		return fmt.Errorf("--types limits the types followed down; it cannot be combined with --up, which follows controllers")
	}
	for _, r := range o.roots {
		if len(r.names) > 0 && o.AllNamespaces {
			return fmt.Errorf("a resource cannot be retrieved by name across all namespaces; drop -A or name the type alone, e.g. 'kubectl informer tree %s -A -l app=web'", r.typ)
		}
		if len(r.names) > 0 && o.LabelSelector != "" {
			return fmt.Errorf("--selector picks roots among every object of a type; name the type alone, e.g. 'kubectl informer tree %s -l %s'", r.typ, o.LabelSelector)
		}
	}
	return nil
}

// treeTarget is one target of a tree: the question (read only), the
// engine options connected to the target, the one namespace it looks in
// ("" with -A), and where its warnings go.
type treeTarget struct {
	pluginengines.EngineOptions
	q         *TreeOptions
	namespace string
	errOut    io.Writer
	// ages is the instant the target's ages count from (connect): the
	// current time unless it reads a dump or a recording.
	ages pluginengines.Ages
}

// findRoots caches each root type, with the label selector, or a field selector on the name
// when one object is named, and returns the roots in argument order. A named root that does not
// exist is an error, as in kubectl get. The returned func shuts the root engines down.
func (c *treeTarget) findRoots(ctx context.Context, full bool) ([]tree.Object, func(), error) {
	var engines []pluginengines.RunningEngine
	shutdown := func() {
		for _, e := range engines {
			e.Shutdown()
		}
	}
	var roots []tree.Object
	for _, r := range c.q.roots {
		mappings, err := c.Resolve(r.typ)
		if err != nil {
			return nil, shutdown, err
		}
		// A Service's pods are found by its selector, in its spec.
		rootFull := full || mappings[0].Resource.GroupResource() == servicesResource
		cfg := engine.Config{Namespaces: c.Namespaces, LabelSelector: c.LabelSelector, SyncTimeout: c.SyncTimeout, FullObjects: rootFull, Progress: progress.FromContext(ctx, nil)}
		if len(r.names) == 1 && !c.Engines.Shared() {
			// A shared pool keeps the type whole instead of an informer per name.
			cfg.FieldSelector = "metadata.name=" + r.names[0]
		}
		eng, err := c.Engines.Start(ctx, c.Source, pluginengines.EngineRequest{Mappings: mappings, Config: cfg, ErrOut: c.errOut})
		if err != nil {
			return nil, shutdown, err
		}
		engines = append(engines, eng)
		t := eng.Types()[0]
		if len(r.names) == 0 {
			objs, err := t.Lookup(nil)
			if err != nil {
				return nil, shutdown, err
			}
			for _, obj := range objs {
				roots = append(roots, typeObject(t, obj))
			}
			continue
		}
		for _, name := range r.names {
			key := name
			if t.Namespaced() {
				key = c.namespace + "/" + name
			}
			obj, exists, err := t.GetByKey(key)
			if err != nil {
				return nil, shutdown, fmt.Errorf("reading %s %q from the cache: %w", t.Name(), name, err)
			}
			if !exists {
				return nil, shutdown, &rootNotFoundError{resource: t.Name(), name: name}
			}
			roots = append(roots, typeObject(t, obj))
		}
	}
	return roots, shutdown, nil
}

func typeObject(t *engine.Type, obj interface{}) tree.Object {
	return tree.NewObject(t.Mapping.Resource.GroupResource(), t.Mapping.GroupVersionKind.Kind, obj)
}

// downTrees caches the followed types with an owner-uid index, one engine each so that a type
// the user may not read is reported and skipped, and walks down from every root.
func (c *treeTarget) downTrees(ctx context.Context, roots []tree.Object, full bool) ([]*tree.Node, error) {
	mappings, err := c.followedTypes()
	if err != nil {
		return nil, err
	}
	ownerUID, err := c.IndexSet.Lookup("owner-uid")
	if err != nil {
		return nil, err
	}
	each, err := c.Engines.Related(c.Source).Start(ctx, mappings, engine.Config{
		Namespaces:  c.Namespaces,
		SyncTimeout: c.SyncTimeout,
		FullObjects: full,
		Indexes:     []index.Definition{ownerUID},
		Progress:    progress.FromContext(ctx, nil),
	})
	defer each.Shutdown()
	if err != nil {
		return nil, err
	}
	for _, u := range each.Unreadable {
		fmt.Fprintf(c.errOut, "Warning: the tree does not follow %s, which cannot be read: %v\n", u.Name, u.Err)
	}
	deps := cacheDependents{types: each.Types, index: ownerUID.Name}
	trees := make([]*tree.Node, 0, len(roots))
	for _, r := range roots {
		n, err := tree.Down(r, deps)
		if err != nil {
			return nil, err
		}
		trees = append(trees, n)
	}
	return trees, nil
}

// followedTypes resolves --types, or the default types; a default type the server does not serve
// is left out (logged at -v=1), a --types type it does not serve is an error.
func (c *treeTarget) followedTypes() ([]*meta.RESTMapping, error) {
	if len(c.q.Types) > 0 {
		mappings, err := c.Resolve(strings.Join(c.q.Types, ","))
		if err != nil {
			return nil, fmt.Errorf("--types: %w", err)
		}
		return mappings, nil
	}
	var mappings []*meta.RESTMapping
	for _, typ := range defaultTreeTypes {
		m, err := c.Resolve(typ)
		if err != nil {
			klog.V(1).InfoS("not following a default type", "type", typ, "err", err)
			continue
		}
		mappings = append(mappings, m...)
	}
	return mappings, nil
}

// cacheDependents finds dependents through the owner-uid index of each followed type, and the
// pods a Service selects when pods are followed.
type cacheDependents struct {
	types []*engine.Type
	index string
}

func (d cacheDependents) Dependents(owner tree.Object) ([]tree.Object, error) {
	var out []tree.Object
	uid := string(owner.UID())
	for _, t := range d.types {
		objs, err := t.Lookup([]index.Selector{{Name: d.index, Operator: index.Equals, Values: []string{uid}}})
		if err != nil {
			return nil, fmt.Errorf("looking up dependents in %s: %w", t.Name(), err)
		}
		for _, obj := range objs {
			out = append(out, typeObject(t, obj))
		}
	}
	if owner.Resource != servicesResource {
		return out, nil
	}
	sel, ok := index.SelectorOf(owner.Obj)
	if !ok {
		return out, nil
	}
	for _, t := range d.types {
		if t.Mapping.Resource.GroupResource() != podsResource {
			continue
		}
		pods, err := t.Lookup([]index.Selector{{Name: toolscache.NamespaceIndex, Operator: index.Equals, Values: []string{owner.Namespace}}})
		if err != nil {
			return nil, fmt.Errorf("looking up the pods of %s/%s: %w", owner.Kind, owner.Name, err)
		}
		for _, pod := range pods {
			if m, err := meta.Accessor(pod); err == nil && sel.Selector.Matches(labels.Set(m.GetLabels())) {
				out = append(out, typeObject(t, pod))
			}
		}
	}
	return out, nil
}

var (
	servicesResource = schema.GroupResource{Resource: "services"}
	podsResource     = schema.GroupResource{Resource: "pods"}
)

// upTrees caches the owner types of the roots, level by level, and returns each root's chain of
// controllers as a tree, top-most first. Owners that cannot be read end the chain with what
// their dependent's reference says of them.
func (c *treeTarget) upTrees(ctx context.Context, roots []tree.Object, full bool) ([]*tree.Node, error) {
	seeds := make([]interface{}, len(roots))
	for i, r := range roots {
		seeds[i] = r.Obj
	}
	owners, err := engine.StartOwners(ctx, c.Engines.Related(c.Source), seeds, engine.OwnersConfig{Namespaces: c.Namespaces, FullObjects: full, SyncTimeout: c.SyncTimeout})
	if err != nil {
		return nil, err
	}
	defer owners.Shutdown()
	for _, u := range owners.Unreadable() {
		pluginengines.WarnOwnersStop(c.errOut, u)
	}
	graph := index.Owners(owners)
	trees := make([]*tree.Node, 0, len(roots))
	for _, r := range roots {
		chain := []tree.Object{r}
		ns := r.Namespace
		for _, ref := range index.OwnerChain(r.Obj, graph) {
			owner, _ := graph.Owner(ns, ref)
			gk := index.OwnerKinds(ref)
			if t := owners.Type(gk); t != nil && owner != nil {
				chain = append(chain, typeObject(t, owner))
				ns = owner.GetNamespace()
				continue
			}
			chain = append(chain, tree.Object{Kind: ref.Kind, Namespace: ns, Name: ref.Name})
		}
		trees = append(trees, tree.Up(chain))
	}
	return trees, nil
}

// rootNotFoundError is the error of a named root that does not exist, as
// kubectl get says it.
type rootNotFoundError struct {
	resource, name string
}

func (e *rootNotFoundError) Error() string {
	return fmt.Sprintf("%s %q not found", e.resource, e.name)
}
