package engines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/manifest"
	"github.com/kubectl-informer/kubectl-informer/pkg/offline"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
)

// AddFromFlags adds --from to cmd, whose RunE is already set, and wraps
// RunE: with --from, the command runs here over the files (never in a warm
// cache), needing no kubeconfig; a watch prints the files' objects first
// (as --initial does; a grouped watch, its table). A recording among the
// paths is read by recordingEnginesFor instead. watch,
// set for a watch, is called before a watch over dump files runs.
func AddFromFlags(cmd *cobra.Command, o cmdutil.Command, eo *EngineOptions, watch func()) {
	var paths []string
	cmd.Flags().StringArrayVar(&paths, "from", nil, "Read objects from files instead of an API server (repeatable): kubectl get -o yaml|json output, multi-document YAML, JSON streams, or directories walked recursively (kubectl cluster-info dump --output-directory, must-gather). No kubeconfig is read; the namespace is -n or default.")
	_ = cmd.MarkFlagFilename("from", "yaml", "yml", "json")
	times := addRecordingFlags(cmd, watch != nil)
	live := cmd.RunE
	direct := cmdutil.RunE(o)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(paths) == 0 {
			if err := times.validate(nil, false); err != nil {
				return err
			}
			return live(c, args)
		}
		if rec, err := recordingEnginesFor(paths, times, c.ErrOrStderr()); err != nil || rec != nil {
			if err != nil {
				return err
			}
			eo.Engines = rec
			return direct(c, args)
		}
		eo.Engines = fromEngines{paths: paths}
		if watch != nil {
			watch()
		}
		return direct(c, args)
	}
}

// LoadFrom opens --from's paths as a source that is finished from the
// start and reads the files of a type only when the command asks for the
// type (offline.OpenDump). Their managedFields are dropped as they are
// read: no command reads them from files (query, tree and capacity drop
// them live too, and a dump has no updates for a watch to attribute). The
// collector runs sooner while files are decoded (tightenGCWhileReading).
func LoadFrom(paths []string) (engine.Source, error) {
	source, err := offline.OpenDump(paths, manifest.Options{DropManagedFields: true, WhileReading: TightenGCWhileReading})
	if err != nil {
		return nil, fmt.Errorf("--from %w", err)
	}
	return source, nil
}

// fromEngines starts the command's own engines over the --from files.
type fromEngines struct {
	paths []string
}

// Namespace is FilesNamespace.
func (fromEngines) Namespace(configFlags *genericclioptions.ConfigFlags) (string, error) {
	return FilesNamespace(configFlags), nil
}

// FilesNamespace is the namespace of a command over files (--from, a
// recording): -n, or "default": a kubeconfig's context says nothing of
// files.
func FilesNamespace(configFlags *genericclioptions.ConfigFlags) string {
	if configFlags.Namespace != nil && *configFlags.Namespace != "" {
		return *configFlags.Namespace
	}
	return metav1.NamespaceDefault
}

func (f fromEngines) connect(*genericclioptions.ConfigFlags) (engine.Source, string, error) {
	source, err := LoadFrom(f.paths)
	return source, "--from " + strings.Join(f.paths, ","), err
}

// resolve resolves as over discovery, with an unknown type's message
// naming --from.
func (fromEngines) resolve(source engine.Source, args []string) ([]*meta.RESTMapping, error) {
	mappings, err := engine.Resolve(source.RESTMapper(), args)
	if err != nil && strings.HasPrefix(err.Error(), "the server doesn't have a resource type") {
		return nil, errors.New(strings.Replace(err.Error(), "the server doesn't have a", "the --from files have no", 1) + " (nor a CRD that defines it)")
	}
	return mappings, err
}

// Start starts a direct engine over source; a watch's engine also says
// when every event of a finished source has been queued (drainedEngine).
func (fromEngines) Start(ctx context.Context, source engine.Source, req EngineRequest) (RunningEngine, error) {
	finisher, finishes := source.(interface{ Finished() <-chan struct{} })
	offerer, counts := source.(interface{ Offered() int64 })
	if req.Queue == nil || !finishes || !counts {
		return DirectEngines{}.Start(ctx, source, req)
	}
	counted := &countingSource{Source: source, offered: offerer.Offered}
	out := req.Queue
	req.Queue = engine.NewQueue(math.MaxInt)
	eng, err := DirectEngines{}.Start(ctx, counted, req)
	if err != nil {
		return nil, err
	}
	d := &drainedEngine{RunningEngine: eng, stop: make(chan struct{}), drained: make(chan struct{})}
	go d.pump(req.Queue, out)
	go d.watch(finisher.Finished(), counted, out)
	return d, nil
}

func (fromEngines) Related(source engine.Source) engine.RelatedTypes {
	return engine.SourceTypes{Source: source}
}

func (fromEngines) Shared() bool { return false }

// drainedEngine is a watch's engine over a source that finishes: its
// events pass through pump, which counts them, and drained closes once the
// source is finished and every object its feeds sent has reached the
// watch's queue and been taken from it.
type drainedEngine struct {
	RunningEngine
	queued  atomic.Int64
	stop    chan struct{}
	drained chan struct{}
}

// SourceDrained returns the channel closed when engine's finished source
// has nothing more to print, or nil for a live engine.
func SourceDrained(eng RunningEngine) <-chan struct{} {
	if d, ok := eng.(*drainedEngine); ok {
		return d.drained
	}
	return nil
}

func (d *drainedEngine) Shutdown() {
	close(d.stop)
	d.RunningEngine.Shutdown()
}

func (d *drainedEngine) pump(in, out *engine.Queue) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-d.stop
		cancel()
	}()
	for {
		ev, ok := in.Pop(ctx)
		if !ok {
			return
		}
		out.Push(ev)
		d.queued.Add(1)
	}
}

// drainIdle bounds the wait for events the count expects but the
// informers do not send (none are known): a finished source whose queue
// stayed empty this long is drained.
const drainIdle = 2 * time.Second

func (d *drainedEngine) watch(finished <-chan struct{}, counted *countingSource, out *engine.Queue) {
	select {
	case <-finished:
	case <-d.stop:
		return
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	last, idleSince := int64(-1), time.Now()
	for {
		select {
		case <-d.stop:
			return
		case <-tick.C:
		}
		queued := d.queued.Load()
		pending, _ := out.Stats()
		if queued != last || pending > 0 {
			last, idleSince = queued, time.Now()
		}
		if pending == 0 && (queued >= counted.sent() || time.Since(idleSince) > drainIdle) {
			close(d.drained)
			return
		}
	}
}

// countingSource counts the objects its feeds send an engine: the items
// of every list, and the events the source's watches were given to
// deliver (offline.Source.Offered).
type countingSource struct {
	engine.Source
	offered func() int64
	listed  atomic.Int64
}

// sent returns how many objects the source's feeds have sent or will send.
func (s *countingSource) sent() int64 { return s.listed.Load() + s.offered() }

func (s *countingSource) Feed(mapping *meta.RESTMapping, namespace string, full bool) (engine.Feed, error) {
	feed, err := s.Source.Feed(mapping, namespace, full)
	if err != nil {
		return feed, err
	}
	feed.ListerWatcherWithContext = countingFeed{ListerWatcherWithContext: feed.ListerWatcherWithContext, listed: &s.listed}
	return feed, nil
}

// countingFeed counts the items its lists return.
type countingFeed struct {
	toolscache.ListerWatcherWithContext
	listed *atomic.Int64
}

func (f countingFeed) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	list, err := f.ListerWatcherWithContext.ListWithContext(ctx, opts)
	if err == nil {
		f.listed.Add(int64(meta.LenList(list)))
	}
	return list, err
}

// FromEnded reports whether engine's finished source has nothing more to
// print.
func FromEnded(eng RunningEngine) bool {
	select {
	case <-SourceDrained(eng):
		return SourceDrained(eng) != nil
	default:
		return false
	}
}

// PrintSynced says on errOut, once a watch is watching, how many objects
// each type's cache holds, or, over --from files (a dump, which holds no
// changes), that nothing more will come.
func PrintSynced(errOut io.Writer, engines engineSource, types []*engine.Type) {
	if _, dump := engines.(fromEngines); dump {
		fmt.Fprintf(errOut, "read %s from --from; a dump holds no changes to watch\n", Counts(types))
		return
	}
	fmt.Fprintf(errOut, "synced %s; watching for changes\n", Counts(types))
}

// Counts says how many objects each type's cache holds: "pods: 3, nodes: 1".
func Counts(types []*engine.Type) string {
	counts := make([]string, 0, len(types))
	for _, t := range types {
		counts = append(counts, fmt.Sprintf("%s: %d", t.Name(), t.Len()))
	}
	return strings.Join(counts, ", ")
}
