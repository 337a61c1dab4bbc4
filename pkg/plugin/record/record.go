// Package record is the record command: the named types' events written
// to a recording file, to be read later with --from and --at, or history.
package record

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/completion"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	pluginwatch "github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

const recordExample = `  # Record a rollout: deployments, their ReplicaSets and pods in one namespace, until Ctrl-C
  kubectl informer record deployments,replicasets,pods -n shop --to rollout.rec

  # Every node and pod of the cluster for an hour
  kubectl informer record nodes,pods -A --to hour.rec --duration 1h`

// recordFlushDelay bounds how long a recorded event may wait before it is
// flushed to disk (and so survives a crash) while more events come.
const recordFlushDelay = 250 * time.Millisecond

// RecordOptions are the options of kubectl informer record.
type RecordOptions struct {
	engines.EngineOptions

	To        string
	Duration  time.Duration
	Overwrite bool

	genericiooptions.IOStreams

	// Set by Complete.
	typeArg string
}

// NewRecordOptions returns RecordOptions with defaults.
func NewRecordOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *RecordOptions {
	return &RecordOptions{
		EngineOptions: engines.EngineOptions{ConfigFlags: configFlags, Engines: engines.DirectEngines{}},
		IOStreams:     streams,
	}
}

// NewCmdRecord returns the record command.
func NewCmdRecord(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewRecordOptions(configFlags, streams)
	cmd := &cobra.Command{
		Use:   "record TYPE[,TYPE...] --to FILE [flags]",
		Short: "Record the objects of types and every change to them, to a file",
		Long: "Start shared informers for the named types, as watch does, and write to --to the state once every cache has synced, then every add, update and delete with the time it was seen, until Ctrl-C (SIGINT), SIGTERM or --duration. " +
			"The file is compressed and stores each object whole once, then its changes; it is flushed at least every quarter second, so a recording cut off by a crash or a full disk reads up to its last flushed event. " +
			"Objects are recorded whole, managedFields included.",
		Example: recordExample,
		RunE:    cmdutil.RunE(o),
	}
	o.EngineOptions.AddFlags(cmd)
	_ = cmd.Flags().MarkHidden("indexer")
	f := cmd.Flags()
	f.StringVar(&o.To, "to", "", "The file to record to (required). It must not exist, unless --overwrite.")
	f.DurationVar(&o.Duration, "duration", 0, "Stop after recording this long and exit 0 (0: until interrupted).")
	f.BoolVar(&o.Overwrite, "overwrite", false, "Replace the --to file if it exists.")
	completion.RegisterCompletions(cmd, configFlags)
	return cmd
}

// Complete parses the type argument and connects to the API server.
func (o *RecordOptions) Complete(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return fmt.Errorf("you must specify the types to record, e.g. 'kubectl informer record pods --to pods.rec'")
	case len(args) > 1 || strings.Contains(args[0], "/"):
		return fmt.Errorf("record takes TYPE[,TYPE...] only, got %q: it records every object of the types; narrow it with -n, -l or --field-selector", strings.Join(args, " "))
	}
	o.typeArg = args[0]
	if err := o.CompleteFlags(); err != nil {
		return err
	}
	if err := o.Connect(o.ConfigFlags); err != nil {
		return err
	}
	o.Config = pluginwatch.Watching(o.Config, o.ErrOut)
	o.Config.FullObjects = true
	o.Config.ManagedFields = engine.KeepManagedFields
	o.Config.Progress = progress.NewProgress(o.ErrOut)
	return nil
}

// Validate checks the flags without I/O; its errors name the flag.
func (o *RecordOptions) Validate() error {
	if o.To == "" {
		return fmt.Errorf("--to is required: the file to record to")
	}
	if o.Duration < 0 {
		return fmt.Errorf("--duration must not be negative, got %s", o.Duration)
	}
	if len(o.Indexers) > 0 {
		return fmt.Errorf("--indexer does not apply to record: a recording holds whole objects, and commands reading it index them")
	}
	return o.EngineOptions.Validate()
}

// Run records until interrupted or --duration: it creates the file, starts
// the engine, writes the synced state and then every event.
func (o *RecordOptions) Run(ctx context.Context) error {
	ctx, stop := cmdutil.Interruptible(ctx)
	defer stop()

	mappings, err := o.Resolve(o.typeArg)
	if err != nil {
		return err
	}
	header := recording.Header{
		Started:       time.Now(),
		Server:        o.Server,
		Types:         recordingTypes(mappings, o.shortNames),
		Namespaces:    o.Namespaces,
		LabelSelector: o.LabelSelector,
		FieldSelector: o.FieldSelector,
	}
	if o.Overwrite {
		if err := os.Remove(o.To); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("--overwrite: %w", err)
		}
	}
	w, err := recording.Create(o.To, header)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("--to %s exists; pass --overwrite to replace it", o.To)
		}
		return fmt.Errorf("--to: %w", err)
	}
	queue := engine.NewQueue(pluginwatch.QueueLimit)
	eng, err := o.Engines.Start(ctx, o.Source, engines.EngineRequest{
		Mappings: mappings, Config: o.Config, Queue: queue, ErrOut: o.ErrOut,
	})
	if err != nil {
		// Nothing was recorded: leave no file behind.
		_ = w.Close()
		_ = os.Remove(o.To)
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	defer eng.Shutdown()
	fmt.Fprintf(o.ErrOut, "synced %s; recording to %s\n", engines.Counts(eng.Types()), o.To)

	ctx, cancel := engines.RunContext(ctx, eng, o.Duration)
	defer cancel()
	r := newRecorder(w, header.Types)
	err = r.run(ctx, queue)
	if cerr := w.Close(); err == nil && cerr != nil {
		err = cerr
	}
	o.printSummary(w, queue)
	if err != nil {
		return fmt.Errorf("recording to %s: %w", o.To, err)
	}
	return eng.Err()
}

// printSummary says on stderr what the recording holds.
func (o *RecordOptions) printSummary(w *recording.Writer, queue *engine.Queue) {
	size := ""
	if fi, err := os.Stat(o.To); err == nil {
		size = fmt.Sprintf(" (%.1f KiB)", float64(fi.Size())/1024)
	}
	fmt.Fprintf(o.ErrOut, "recorded %d events of %d objects to %s%s\n", w.Events(), w.Objects(), o.To, size)
	if _, coalesced := queue.Stats(); coalesced > 0 {
		fmt.Fprintf(o.ErrOut, "warning: the recorder fell behind; %d updates were merged into earlier pending updates of the same objects (the recording has their net change)\n", coalesced)
	}
}

// shortNames returns the short names and the singular name discovery lists
// for mapping's resource; none when discovery cannot say.
func (o *RecordOptions) shortNames(mapping *meta.RESTMapping) (short []string, singular string) {
	client, err := o.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		klog.V(2).InfoS("no short names for the recording", "resource", mapping.Resource, "err", err)
		return nil, ""
	}
	list, err := client.ServerResourcesForGroupVersion(mapping.Resource.GroupVersion().String())
	if err != nil {
		klog.V(2).InfoS("no short names for the recording", "resource", mapping.Resource, "err", err)
		return nil, ""
	}
	for _, r := range list.APIResources {
		if r.Name == mapping.Resource.Resource {
			return r.ShortNames, r.SingularName
		}
	}
	return nil, ""
}

// recordingTypes returns the header's types for mappings, in their order;
// names gives each type's short names and singular name.
func recordingTypes(mappings []*meta.RESTMapping, names func(*meta.RESTMapping) ([]string, string)) []recording.Type {
	types := make([]recording.Type, 0, len(mappings))
	for _, m := range mappings {
		short, singular := names(m)
		types = append(types, recording.Type{
			Group:      m.Resource.Group,
			Version:    m.Resource.Version,
			Resource:   m.Resource.Resource,
			Kind:       m.GroupVersionKind.Kind,
			Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace,
			Singular:   singular,
			ShortNames: short,
			BuiltIn:    scheme.Scheme.Recognizes(m.GroupVersionKind),
		})
	}
	return types
}

// recorder writes the events of an engine's queue to a recording.
type recorder struct {
	w     *recording.Writer
	types map[schema.GroupVersionResource]int
	kinds []schema.GroupVersionKind
	// live is set once a live (not initial) event has been written: the
	// initial state of a type whose list the engine handed over after
	// another type's live event is recorded as plain adds, so that every
	// Initial event of the file comes before every live one.
	live      bool
	dirty     bool
	lastFlush time.Time
	now       func() time.Time
}

func newRecorder(w *recording.Writer, types []recording.Type) *recorder {
	r := &recorder{w: w, types: map[schema.GroupVersionResource]int{}, now: time.Now}
	for i, t := range types {
		r.types[t.GroupVersionResource()] = i
		r.kinds = append(r.kinds, t.GroupVersionKind())
	}
	return r
}

// run writes q's events until ctx ends, then those still pending, and
// flushes. An event is flushed at most recordFlushDelay after it is
// written; a lone event at once.
func (r *recorder) run(ctx context.Context, q *engine.Queue) error {
	for {
		popCtx, cancel := ctx, context.CancelFunc(func() {})
		if r.dirty && ctx.Err() == nil {
			popCtx, cancel = context.WithDeadline(ctx, r.lastFlush.Add(recordFlushDelay))
		}
		ev, ok := q.Pop(popCtx)
		cancel()
		if !ok {
			if ctx.Err() != nil {
				return r.flush()
			}
			if err := r.flush(); err != nil {
				return err
			}
			continue
		}
		if err := r.write(ev); err != nil {
			return err
		}
		if r.now().Sub(r.lastFlush) >= recordFlushDelay {
			if err := r.flush(); err != nil {
				return err
			}
		}
	}
}

func (r *recorder) flush() error {
	if !r.dirty {
		return nil
	}
	r.dirty = false
	r.lastFlush = r.now()
	return r.w.Flush()
}

// write records one event of the engine's queue.
func (r *recorder) write(ev *engine.Event) error {
	if ev.Related != nil {
		return nil // not a change of the object (no relations are started here)
	}
	i, ok := r.types[ev.Resource.Mapping.Resource]
	if !ok {
		return fmt.Errorf("an event of %s, a type not recorded", ev.Resource.Name())
	}
	content, err := object.Content(ev.Object())
	if err != nil {
		return fmt.Errorf("an event of %s %s: %w", ev.Resource.Name(), ev.Key, err)
	}
	if content["apiVersion"] == nil || content["kind"] == nil {
		// Copy the top level: the content may be the cache's own map.
		withKind := make(map[string]interface{}, len(content)+2)
		for k, v := range content {
			withKind[k] = v
		}
		apiVersion, kind := r.kinds[i].ToAPIVersionAndKind()
		withKind["apiVersion"], withKind["kind"] = apiVersion, kind
		content = withKind
	}
	// The engine's event types are the API's.
	typ := watch.EventType(ev.Type)
	if typ != watch.Added && typ != watch.Modified && typ != watch.Deleted {
		return fmt.Errorf("an event of %s %s: unknown type %q", ev.Resource.Name(), ev.Key, ev.Type)
	}
	initial := ev.Initial && !r.live
	if !initial {
		r.live = true
	}
	r.dirty = true
	return r.w.Write(recording.Event{
		Time: r.now(), Type: typ, Initial: initial, TypeIndex: i,
		Object: &unstructured.Unstructured{Object: content},
	})
}
