// Package tree is the tree command: what an object owns, recursively, its
// controllers (--up) or what it uses and what uses it (--refs), for one
// context or several (answerTreeTargets). Its trees are drawn by pkg/tree.
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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
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

	// Set by Complete.
	roots     []treeRootArg
	out       printing.Output
	namespace string // the one namespace of -n, "" with -A
	// ages is the instant the tree's ages count from: the current time
	// unless it reads a dump or a recording.
	ages pluginengines.Ages
}

// treeRootArg is one root type as the user named it, with the names asked for (none: every
// object of the type, as -l selects them).
type treeRootArg struct {
	typ   string
	names []string
}

// NewTreeOptions returns TreeOptions with defaults.
func NewTreeOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *TreeOptions {
	return &TreeOptions{EngineOptions: pluginengines.EngineOptions{ConfigFlags: configFlags, Engines: pluginengines.DirectEngines{}}, IOStreams: streams}
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
	pluginengines.AddFromFlags(cmd, o, &o.EngineOptions, nil)
	o.EngineOptions.AddNowFlag(cmd)
	cmd.RunE = fleetTreeRunE(o, targets.AddFlags(cmd), cmd.RunE)
	completion.RegisterCompletions(cmd, configFlags)
	return cmd
}

// Complete parses the arguments and -o, and builds the clients from kubeconfig; it sends no
// request. A tree printed as a table learns the instant its ages count from
// (EngineOptions.Ages), which it says on stderr when it is not now.
func (o *TreeOptions) Complete(cmd *cobra.Command, args []string) error {
	roots, err := parseTreeArgs(args)
	if err != nil {
		return err
	}
	o.roots = roots
	if err := o.EngineOptions.Complete(); err != nil {
		return err
	}
	switch len(o.Namespaces) {
	case 0:
		o.namespace = ""
	case 1:
		o.namespace = o.Namespaces[0]
	default:
		return fmt.Errorf("tree looks in one namespace (-n NS) or all (-A), got -n %s", strings.Join(o.Namespaces, ","))
	}
	out, err := printing.ParseOutput(o.Output)
	if err != nil {
		return err
	}
	o.out = out
	if out.Format == "" {
		if o.ages, err = o.EngineOptions.Ages(o.ErrOut); err != nil {
			return err
		}
	}
	return nil
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

// Run starts the informers, builds the trees and prints them, as the
// answer of a set of one target (answerTreeTargets): the target the
// command's own kubeconfig flags name.
func (o *TreeOptions) Run(ctx context.Context) error {
	ctx, stop := cmdutil.Interruptible(ctx)
	defer stop()
	one := targets.Set{Targets: []targets.Target{{Name: targets.ContextFlag(o.ConfigFlags), ConfigFlags: o.ConfigFlags}}}
	return o.answerTreeTargets(ctx, one, func(ctx context.Context, t targets.Target) (*treeAnswer, error) {
		a := &treeAnswer{name: t.Name, shutdown: func() {}}
		return a, o.collectTree(ctx, a)
	})
}

// findRoots caches each root type, with the label selector, or a field selector on the name
// when one object is named, and returns the roots in argument order. A named root that does not
// exist is an error, as in kubectl get. The returned func shuts the root engines down.
func (o *TreeOptions) findRoots(ctx context.Context, full bool) ([]tree.Object, func(), error) {
	var engines []*engine.Engine
	shutdown := func() {
		for _, e := range engines {
			e.Shutdown()
		}
	}
	var roots []tree.Object
	for _, r := range o.roots {
		mappings, err := o.Resolve(r.typ)
		if err != nil {
			return nil, shutdown, err
		}
		// A Service's pods are found by its selector, in its spec.
		rootFull := full || mappings[0].Resource.GroupResource() == servicesResource
		cfg := engine.Config{Namespaces: o.Namespaces, LabelSelector: o.LabelSelector, SyncTimeout: o.SyncTimeout, FullObjects: rootFull, Progress: progress.FromContext(ctx, nil)}
		if len(r.names) == 1 {
			cfg.FieldSelector = "metadata.name=" + r.names[0]
		}
		eng, err := engine.New(o.Source, mappings, cfg)
		if err != nil {
			return nil, shutdown, err
		}
		engines = append(engines, eng)
		if err := pluginengines.StartEngine(ctx, eng); err != nil {
			return nil, shutdown, err
		}
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
				key = o.namespace + "/" + name
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
func (o *TreeOptions) downTrees(ctx context.Context, roots []tree.Object, full bool) ([]*tree.Node, error) {
	mappings, err := o.followedTypes()
	if err != nil {
		return nil, err
	}
	ownerUID, err := o.IndexSet.Lookup("owner-uid")
	if err != nil {
		return nil, err
	}
	each, err := engine.StartEach(ctx, o.Source, mappings, engine.Config{
		Namespaces:  o.Namespaces,
		SyncTimeout: o.SyncTimeout,
		FullObjects: full,
		Indexes:     []index.Definition{ownerUID},
		Progress:    progress.FromContext(ctx, nil),
	})
	defer each.Shutdown()
	if err != nil {
		return nil, err
	}
	for _, u := range each.Unreadable {
		fmt.Fprintf(o.ErrOut, "Warning: the tree does not follow %s, which cannot be read: %v\n", u.Name, u.Err)
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
func (o *TreeOptions) followedTypes() ([]*meta.RESTMapping, error) {
	if len(o.Types) > 0 {
		mappings, err := o.Resolve(strings.Join(o.Types, ","))
		if err != nil {
			return nil, fmt.Errorf("--types: %w", err)
		}
		return mappings, nil
	}
	var mappings []*meta.RESTMapping
	for _, typ := range defaultTreeTypes {
		m, err := o.Resolve(typ)
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
func (o *TreeOptions) upTrees(ctx context.Context, roots []tree.Object, full bool) ([]*tree.Node, error) {
	seeds := make([]interface{}, len(roots))
	for i, r := range roots {
		seeds[i] = r.Obj
	}
	owners, err := engine.StartOwners(ctx, o.Engines.Related(o.Source), seeds, engine.OwnersConfig{Namespaces: o.Namespaces, FullObjects: full, SyncTimeout: o.SyncTimeout})
	if err != nil {
		return nil, err
	}
	defer owners.Shutdown()
	for _, u := range owners.Unreadable() {
		pluginengines.WarnOwnersStop(o.ErrOut, u)
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

// printTreeNames prints kubectl's -o name for each object, "deployment.apps/web", and
// "kind/name" for an owner known only from a reference.
func printTreeNames(w io.Writer, lines []tree.Line) error {
	for _, l := range lines {
		name := strings.ToLower(l.Kind)
		if l.Resource.Group != "" {
			name += "." + l.Resource.Group
		}
		if _, err := fmt.Fprintf(w, "%s/%s\n", name, l.Name); err != nil {
			return err
		}
	}
	return nil
}

// statusCells returns the READY and STATUS cells kubectl get prints for obj, where its table has
// such columns; "" otherwise.
func statusCells(obj tree.Object, now time.Time) (ready, status string) {
	ro, ok := obj.Obj.(runtime.Object)
	if !ok {
		return "", ""
	}
	table, ok := columns.For(obj.Resource)
	if !ok {
		return "", ""
	}
	row, err := table.Row(ro, now)
	if err != nil {
		return "", ""
	}
	for i, c := range table.Columns {
		if i >= len(row) {
			break
		}
		switch c.Header {
		case "READY":
			ready = row[i]
		case "STATUS":
			status = row[i]
		}
	}
	return ready, status
}

// age is the AGE kubectl prints for obj, "" when obj is unknown.
func age(obj interface{}, now time.Time) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	created := m.GetCreationTimestamp()
	if created.IsZero() {
		return ""
	}
	return duration.HumanDuration(now.Sub(created.Time))
}
