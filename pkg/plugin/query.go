package plugin

import (
	"context"
	"fmt"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

const queryExample = `  # Pods on one node, across all namespaces
  kubectl informer query pods -A --index node=worker-1

  # Pods that run an image, by a custom JSONPath index
  kubectl informer query pods -A --indexer img='{.spec.containers[*].image}' --index img=nginx:1.27

  # Deployments and replica sets owned by something, in one namespace
  kubectl informer query deploy,rs -n shop --index owner=Deployment/web

  # How many pods each app has, largest first
  kubectl informer query pods -A --group-by label:app

  # Names only, for scripts
  kubectl informer query pods -A --index phase=Pending -o name`

// QueryOptions are the options of kubectl informer query.
type QueryOptions struct {
	engineOptions

	// IndexSelectors are the --index NAME=VALUE flags, not yet parsed.
	IndexSelectors []string
	GroupBy        string
	Output         string
	NoHeaders      bool
	ShowKind       bool
	ShowLabels     bool
	LabelColumns   []string
	SortBy         string

	genericiooptions.IOStreams

	// Set by Complete.
	typeArg   string
	selectors []index.Selector
	groupBy   *index.Definition
	indexDefs []index.Definition
	out       output
	sortKey   *columns.SortKey
}

// NewQueryOptions returns QueryOptions with defaults.
func NewQueryOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *QueryOptions {
	return &QueryOptions{engineOptions: engineOptions{configFlags: configFlags}, IOStreams: streams}
}

// NewCmdQuery returns the query command.
func NewCmdQuery(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewQueryOptions(configFlags, streams)
	cmd := &cobra.Command{
		Use:     "query TYPE[,TYPE...] [flags]",
		Short:   "Answer index lookups from synced informer caches",
		Long:    "Start shared informers for the named types with the indexes the query needs, wait until every cache has synced, print the objects whose indexed values match, and exit.",
		Example: queryExample,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.engineOptions.addFlags(cmd)
	cmd.Flags().StringArrayVar(&o.IndexSelectors, "index", nil, "Select objects whose index NAME has VALUE: --index NAME=VALUE (repeatable, ANDed). See 'kubectl informer indexers'.")
	cmd.Flags().StringVar(&o.GroupBy, "group-by", "", "Print each value of the index NAME with its object count instead of objects.")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format. One of: (json, yaml, name, wide, custom-columns=…, jsonpath=…, jsonpath-file=…, go-template=…, go-template-file=…).")
	cmd.Flags().BoolVar(&o.NoHeaders, "no-headers", false, "When using the default or custom-column output format, don't print headers.")
	cmd.Flags().BoolVar(&o.ShowKind, "show-kind", false, "If present, list the resource type for the requested object(s).")
	cmd.Flags().BoolVar(&o.ShowLabels, "show-labels", false, "When printing, show all labels as the last column (default hide labels column).")
	cmd.Flags().StringSliceVarP(&o.LabelColumns, "label-columns", "L", nil, "Accepts a comma separated list of labels that are going to be presented as columns. Names are case-sensitive. You can also use multiple flag options like -L label1 -L label2...")
	cmd.Flags().StringVar(&o.SortBy, "sort-by", "", "If non-empty, sort the objects of each type using this field specification. The field specification is expressed as a JSONPath expression (e.g. '{.metadata.name}'); numbers, quantities and times sort by value.")
	registerCompletions(cmd, configFlags)
	return cmd
}

// Complete parses the argument, builds the clients from kubeconfig, and
// builds the engine and print configurations from the flags; it sends no
// request, and reads a file only for -o jsonpath-file and the like.
func (o *QueryOptions) Complete(cmd *cobra.Command, args []string) error {
	switch len(args) {
	case 0:
		return fmt.Errorf("you must specify the type of resource to query, e.g. 'kubectl informer query pods'")
	case 1:
		o.typeArg = args[0]
	default:
		return fmt.Errorf("query takes one TYPE[,TYPE...] argument, got %d: %s (join types with commas: %s)", len(args), strings.Join(args, " "), strings.Join(args, ","))
	}
	if err := o.engineOptions.complete(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, s := range o.IndexSelectors {
		sel, err := index.ParseSelector("--index", s)
		if err != nil {
			return err
		}
		def, err := o.indexSet.Lookup(sel.Name)
		if err != nil {
			return fmt.Errorf("--index %s: %w", s, err)
		}
		o.selectors = append(o.selectors, sel)
		if !seen[def.Name] {
			seen[def.Name] = true
			o.indexDefs = append(o.indexDefs, def)
		}
	}
	if o.GroupBy != "" {
		def, err := o.indexSet.Lookup(o.GroupBy)
		if err != nil {
			return fmt.Errorf("--group-by %s: %w", o.GroupBy, err)
		}
		o.groupBy = &def
		if !seen[def.Name] {
			seen[def.Name] = true
			o.indexDefs = append(o.indexDefs, def)
		}
	}
	out, err := parseOutput(o.Output)
	if err != nil {
		return err
	}
	o.out = out
	if o.SortBy != "" {
		if o.sortKey, err = columns.ParseSortKey(o.SortBy); err != nil {
			return err
		}
	}
	o.config.Indexes = plainIndexes(o.indexDefs)
	o.config.FullObjects = o.fullObjects()
	o.config.Progress = newProgress(o.ErrOut)
	return nil
}

// Validate checks the flags without I/O; its errors name the flag.
func (o *QueryOptions) Validate() error {
	if err := o.engineOptions.validate(); err != nil {
		return err
	}
	if err := validateRelations(o.selectors); err != nil {
		return err
	}
	if o.groupBy != nil && o.out.format != "" && o.out.format != "wide" {
		return fmt.Errorf("--group-by prints a VALUE, COUNT table; it cannot be combined with -o %s", o.Output)
	}
	if o.groupBy != nil && o.SortBy != "" {
		return fmt.Errorf("--sort-by orders objects; it cannot be combined with --group-by, which prints counts")
	}
	return nil
}

// fullObjects reports whether any index or the output needs more than
// metadata: kubectl's columns and --sort-by read whole objects.
func (o *QueryOptions) fullObjects() bool {
	if o.out.needsFullObjects() || o.SortBy != "" || (o.groupBy == nil && o.out.isTable()) {
		return true
	}
	for _, def := range o.indexDefs {
		if !def.MetadataOnly {
			return true
		}
	}
	return false
}

// Run starts the informers, waits for sync and prints the answer.
func (o *QueryOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	mappings, err := o.resolve(o.typeArg)
	if err != nil {
		return err
	}
	engine, err := cache.New(o.clients, mappings, o.config)
	if err != nil {
		return err
	}
	defer engine.Shutdown()
	if err := startEngine(ctx, engine); err != nil {
		return err
	}
	indexDefs, related, err := startRelations(ctx, o.clients, engine.Types(), o.indexDefs, relationOptions{
		namespace: o.namespace, syncTimeout: o.SyncTimeout, selectors: o.selectors, errOut: o.ErrOut,
	})
	if err != nil {
		return err
	}
	defer related.Shutdown()
	o.indexDefs = indexDefs

	if o.groupBy != nil {
		return o.printGroups(engine.Types())
	}
	var groups []typeObjects
	for _, t := range engine.Types() {
		objs, err := t.Lookup(o.selectors)
		if err != nil {
			return err
		}
		if len(objs) > 0 {
			groups = append(groups, typeObjects{t: t, objs: objs})
		}
	}
	if len(groups) == 0 {
		o.printNotFound()
		return nil
	}
	if err := o.sortObjects(groups); err != nil {
		return err
	}
	switch {
	case !o.out.isTable():
		return o.writeObjects(o.Out, groups)
	case o.out.format == "custom-columns":
		return o.printCustomColumns(groups)
	}
	return o.printTables(ctx, groups)
}

// printNotFound says on stderr that nothing matched, as kubectl does.
func (o *QueryOptions) printNotFound() {
	if o.namespace == "" {
		fmt.Fprintln(o.ErrOut, "No resources found")
		return
	}
	fmt.Fprintf(o.ErrOut, "No resources found in %s namespace.\n", o.namespace)
}

func (o *QueryOptions) printGroups(types []*cache.Type) error {
	totals := map[string]int{}
	for _, t := range types {
		counts, err := t.Count(o.groupBy.Name)
		if err != nil {
			return err
		}
		for v, n := range counts {
			totals[v] += n
		}
	}
	if len(totals) == 0 {
		o.printNotFound()
		return nil
	}
	values := make([]string, 0, len(totals))
	for v := range totals {
		values = append(values, v)
	}
	sort.Slice(values, func(i, j int) bool {
		if totals[values[i]] != totals[values[j]] {
			return totals[values[i]] > totals[values[j]]
		}
		return values[i] < values[j]
	})
	rows := make([][]string, 0, len(values))
	for _, v := range values {
		shown := v
		if shown == "" {
			shown = "<none>"
		}
		rows = append(rows, []string{shown, strconv.Itoa(totals[v])})
	}
	return writeTable(o.Out, []string{strings.ToUpper(o.groupBy.Name), "COUNT"}, rows, o.NoHeaders)
}

func (o *QueryOptions) printCustomColumns(groups []typeObjects) error {
	header := make([]string, len(o.out.columns))
	for i, c := range o.out.columns {
		header[i] = c.header
	}
	var objs []interface{}
	for _, g := range groups {
		objs = append(objs, g.objs...)
	}
	table := make([][]string, 0, len(objs))
	for _, obj := range objs {
		m, err := diff.ObjectMap(obj)
		if err != nil {
			return err
		}
		row := make([]string, len(o.out.columns))
		for i, c := range o.out.columns {
			results, err := c.path.FindResults(m)
			if err != nil {
				return fmt.Errorf("-o custom-columns: column %s: %w", c.header, err)
			}
			var values []string
			for _, set := range results {
				for _, v := range set {
					values = append(values, fmt.Sprint(v.Interface()))
				}
			}
			row[i] = joinOrNone(values)
		}
		table = append(table, row)
	}
	return writeTable(o.Out, header, table, o.NoHeaders)
}

// kindName is how a type is named in tables: "pod", "deployment.apps".
func kindName(t *cache.Type) string {
	gk := t.Mapping.GroupVersionKind.GroupKind()
	name := strings.ToLower(gk.Kind)
	if gk.Group != "" {
		name += "." + gk.Group
	}
	return name
}

func joinOrNone(values []string) string {
	if len(values) == 0 {
		return "<none>"
	}
	return strings.Join(values, ",")
}
