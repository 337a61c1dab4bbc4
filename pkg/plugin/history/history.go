// Package history is the history command: what a recording says of one
// object over time, each change with what changed and who changed it.
package history

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/offline"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	pluginwatch "github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

const historyExample = `  # Every recorded change of a Deployment, with its diff and who made it
  kubectl informer history deployment/web -n shop --from rollout.rec

  # The same as NDJSON, one event per line with its time and JSON Patch
  kubectl informer history deploy/web -n shop --from rollout.rec -o json

  # Only what changed in the pod template
  kubectl informer history deploy/web -n shop --from rollout.rec --only spec.template`

// HistoryOptions are the options of kubectl informer history.
type HistoryOptions struct {
	configFlags *genericclioptions.ConfigFlags

	pluginwatch.PrintFlags
	From []string

	genericiooptions.IOStreams

	// Set by Complete.
	typeArg, name string
	namespace     string // as -n or the kubeconfig gives it; "" for a cluster-scoped type
	print         pluginwatch.WatchPrintConfig
}

// NewHistoryOptions returns HistoryOptions with defaults.
func NewHistoryOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *HistoryOptions {
	return &HistoryOptions{configFlags: configFlags, IOStreams: streams}
}

// NewCmdHistory returns the history command.
func NewCmdHistory(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewHistoryOptions(configFlags, streams)
	cmd := &cobra.Command{
		Use:     "history TYPE/NAME --from RECORDING [flags]",
		Short:   "Print every recorded change of one object, with its diff and who made it",
		Long:    "Read a recording (kubectl informer record) and print every state change of one object, in the order recorded, each with the time it was recorded: ADDED, then each update with a diff of what changed and the field managers who made it, as watch prints them, then DELETED. An object recreated under the same name continues the history with a new ADDED.",
		Example: historyExample,
		Args:    cobra.ExactArgs(1),
		RunE:    cmdutil.RunE(o),
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.From, "from", nil, "The recording to read (kubectl informer record --to FILE).")
	o.PrintFlags.AddFlags(cmd, "Output format: text, json (one event per line, with its time and a JSON Patch per update) or yaml.")
	return cmd
}

// Complete parses TYPE/NAME, the namespace and the print flags.
func (o *HistoryOptions) Complete(_ *cobra.Command, args []string) error {
	typ, name, ok := strings.Cut(args[0], "/")
	if !ok || typ == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("history needs one object as TYPE/NAME (deployment/web), got %q", args[0])
	}
	o.typeArg, o.name = typ, name
	o.namespace = engines.FilesNamespace(o.configFlags)
	if o.Output == "name" {
		return fmt.Errorf("-o/--output must be text, json or yaml for history, got %q", o.Output)
	}
	cfg, color, err := o.PrintFlags.Complete()
	if err != nil {
		return err
	}
	cfg.Initial, cfg.Timestamps, cfg.Location, cfg.Color = true, true, time.UTC, color.Enabled(o.Out)
	o.print = cfg
	return nil
}

// Validate checks the flags without I/O.
func (o *HistoryOptions) Validate() error {
	switch len(o.From) {
	case 0:
		return fmt.Errorf("history reads a recording: --from FILE is required (kubectl informer record --to FILE makes one)")
	case 1:
		return nil
	}
	return fmt.Errorf("--from: history reads one recording, got %d", len(o.From))
}

// Run reads the recording and prints the object's history.
func (o *HistoryOptions) Run(ctx context.Context) error {
	p := pluginwatch.NewEventPrinter(o.print, nil, o.Out, o.ErrOut)
	var recordedAt time.Time
	p.RecordedAt = func(*engine.Event) time.Time { return recordedAt }
	defer p.Out.Flush()
	path := o.From[0]
	truncated, err := Each(ctx, path, o.typeArg, o.namespace, o.name, func(ev *engine.Event, at time.Time) error {
		recordedAt = at
		_, err := p.Handle(ev)
		return err
	})
	if err != nil {
		return pluginwatch.QuietPipe(err)
	}
	if err := pluginwatch.QuietPipe(p.Out.Flush()); err != nil {
		return err
	}
	if truncated {
		fmt.Fprintf(o.ErrOut, "warning: %s was cut off after its last complete event; its history ends there\n", path)
	}
	return nil
}

// Each reads the recording at path and calls each with every recorded
// event of the object typeArg/name, in the order recorded, and the time it
// was recorded: ADDED, then updates (old and new states), then DELETED; an
// object recreated under the same name goes on with a new ADDED. namespace
// is the object's, ignored for a cluster-scoped type. An object the
// recording never saw is a NotFound error naming the file; truncated says
// the file was cut off after its last complete event. It stops early,
// without an error, when ctx ends.
func Each(ctx context.Context, path, typeArg, namespace, name string, each func(ev *engine.Event, at time.Time) error) (truncated bool, err error) {
	if ok, err := recording.IsRecordingPath(path); err != nil {
		return false, fmt.Errorf("--from: %w", err)
	} else if !ok {
		return false, fmt.Errorf("--from %s: not a recording (kubectl informer record --to FILE makes one); history needs the events, a dump holds one state", path)
	}
	r, err := recording.OpenEvents(path)
	if err != nil {
		return false, err
	}
	defer r.Close()
	mapping, typeIndex, err := historyType(r.Header(), typeArg)
	if err != nil {
		return false, err
	}
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		namespace = ""
	}
	h := &objectHistory{
		typeIndex: typeIndex,
		namespace: namespace,
		name:      name,
		resource:  &engine.Type{Mapping: mapping},
	}
	if err := h.read(ctx, r, each); err != nil {
		return false, err
	}
	if h.events == 0 {
		where := ""
		if namespace != "" {
			where = fmt.Sprintf(" in namespace %q", namespace)
		}
		return false, fmt.Errorf("NotFound: %s %q%s was never recorded in %s", mapping.Resource.GroupResource(), name, where, path)
	}
	return r.Truncated(), nil
}

// historyType resolves typeArg among a recording's types, through the
// names a source of its types resolves (short names, kinds, group-qualified
// names), and returns its mapping and index in the header.
func historyType(h recording.Header, typeArg string) (*meta.RESTMapping, int, error) {
	mappings := offline.Mappings(h)
	source, err := offline.NewSource(nil, mappings)
	if err != nil {
		return nil, 0, err
	}
	resolved, err := engine.Resolve(source.RESTMapper(), []string{typeArg})
	if err != nil {
		return nil, 0, err
	}
	for i, m := range mappings {
		if m.Resource == resolved[0].Resource {
			return m, i, nil
		}
	}
	return nil, 0, fmt.Errorf("the recording holds no %s", resolved[0].Resource.GroupResource())
}

// objectHistory turns a recording's events of one object into the watch
// events of its history.
type objectHistory struct {
	typeIndex       int
	namespace, name string
	resource        *engine.Type

	// last is the object's last recorded state while it exists.
	last   *unstructured.Unstructured
	events int
}

// read reads r to its end and hands every event of the object to each.
func (h *objectHistory) read(ctx context.Context, r recording.Events, each func(*engine.Event, time.Time) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return nil
		}
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		ce := h.event(ev)
		if ce == nil {
			continue
		}
		h.events++
		if err := each(ce, ev.Time); err != nil {
			return err
		}
	}
}

// event returns the watch event of a recorded one, or nil when it is of
// another object.
func (h *objectHistory) event(ev recording.Event) *engine.Event {
	obj := ev.Object
	if ev.TypeIndex != h.typeIndex || obj.GetName() != h.name || obj.GetNamespace() != h.namespace {
		return nil
	}
	ce := &engine.Event{Resource: h.resource, Key: obj.GetName(), Initial: ev.Initial}
	if h.namespace != "" {
		ce.Key = h.namespace + "/" + ce.Key
	}
	switch {
	case ev.Type == watch.Deleted:
		ce.Type, ce.Old = engine.Deleted, obj
		h.last = nil
		return ce
	case h.last == nil || h.last.GetUID() != obj.GetUID():
		// The first state recorded of this object: an Added event, or
		// a Modified one of an object whose earlier state is not in
		// the recording.
		ce.Type, ce.New = engine.Added, obj
	default:
		ce.Type, ce.Old, ce.New = engine.Modified, h.last, obj
	}
	h.last = obj
	return ce
}
