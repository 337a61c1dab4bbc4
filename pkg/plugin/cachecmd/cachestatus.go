package cachecmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// CacheStatusOptions are the options of kubectl informer cache status.
type CacheStatusOptions struct {
	Output string
	genericiooptions.IOStreams

	configFlags *genericclioptions.ConfigFlags
	// shell is the identity of the kubeconfig flags (and kubeconfig) of
	// this shell, to say which cache its commands use; zero when they do
	// not resolve (no kubeconfig).
	shell shellIdentity
	// fleet, with several contexts, is the contexts whose caches the
	// status lists; nil otherwise.
	fleet *fleetStatus
	// contexts are the flags that select contexts besides --context.
	contexts *targets.Flags
}

// shellIdentity is what the status compares a cache with to say whether
// this shell's commands use it.
type shellIdentity struct {
	socket, server, user, context string
}

func newCmdCacheStatus(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &CacheStatusOptions{IOStreams: streams, configFlags: configFlags}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "List your running warm caches: identity, types, objects, watch health, memory",
		Args:  cobra.NoArgs,
		RunE:  cmdutil.RunE(o),
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: json or yaml (default: tables).")
	o.contexts = addContextsFlag(cmd, "List the warm cache")
	return cmd
}

// Complete resolves the identity of each target: of one, this shell's,
// if its kubeconfig resolves; of several, the socket of each context's
// cache, naming on stderr each context that fails.
func (o *CacheStatusOptions) Complete(*cobra.Command, []string) error {
	if o.configFlags == nil {
		return nil
	}
	set, err := o.contexts.Targets(o.configFlags, false)
	if err != nil {
		return err
	}
	if set.Several {
		o.fleet = &fleetStatus{contexts: map[string][]string{}, failures: set.Failures(o.ErrOut)}
	}
	for _, t := range set.Targets {
		id, err := engines.ResolveCacheIdentity(t.ConfigFlags)
		switch {
		case o.fleet == nil && err == nil:
			user, kubeContext := engines.UserName(t.ConfigFlags)
			o.shell = shellIdentity{socket: id.Socket, server: id.Server, user: user, context: kubeContext}
		case o.fleet != nil && err != nil:
			o.fleet.failures.Add(t.Name, err)
		case o.fleet != nil:
			if _, ok := o.fleet.contexts[id.Socket]; !ok {
				o.fleet.sockets = append(o.fleet.sockets, id.Socket)
			}
			o.fleet.contexts[id.Socket] = append(o.fleet.contexts[id.Socket], t.Name)
		}
	}
	return nil
}

// Validate checks -o.
func (o *CacheStatusOptions) Validate() error {
	switch o.Output {
	case "", "json", "yaml":
		return nil
	}
	return fmt.Errorf("-o/--output must be json or yaml, got %q", o.Output)
}

// cacheEntry is one socket of the status: the cache's Status, or why it
// did not answer.
type cacheEntry struct {
	Socket string           `json:"socket"`
	Status *protocol.Status `json:"status,omitempty"`
	Error  string           `json:"error,omitempty"`
	// Shell says whether this shell's query and watch use the cache
	// (shellNote).
	Shell string `json:"shell,omitempty"`
	// Contexts, with several contexts, are the selected contexts whose
	// identity's cache this is.
	Contexts []string `json:"contexts,omitempty"`
}

// Notes of cacheEntry.Shell.
const (
	usedByShell       = "used by this shell"
	credentialsDiffer = "not used by this shell: credentials differ"
)

// shellNote says whether the commands of the shell use the cache of st at
// socket: usedByShell when it is the shell's identity's cache;
// credentialsDiffer when it is not but has the shell's server, kubeconfig
// user, context and --as, so its credentials differ (a rotated token, a
// renewed certificate, another exec plugin environment): query and watch
// then answer directly, silently, and this says why; "" otherwise.
func shellNote(st *protocol.Status, socket string, shell shellIdentity) string {
	switch {
	case shell.socket == "" || st == nil:
		return ""
	case socket == shell.socket:
		return usedByShell
	case st.Server == shell.server && st.User == shell.user && st.Context == shell.context:
		return credentialsDiffer
	}
	return ""
}

// Run asks every cache of the OS user for its status.
func (o *CacheStatusOptions) Run(context.Context) error {
	dir, err := client.Dir()
	if err != nil {
		return err
	}
	sockets, err := client.Sockets(dir)
	if err != nil {
		return err
	}
	if len(sockets) > 0 {
		if err := client.CheckDir(dir); err != nil {
			return err
		}
	}
	entries := []cacheEntry{}
	for _, socket := range sockets {
		e := cacheEntry{Socket: socket}
		conn, err := client.Dial(socket, engines.DialTimeout)
		if err == nil {
			var st protocol.Status
			st, err = conn.Status(engines.DialTimeout)
			conn.Close()
			e.Status = &st
			e.Shell = shellNote(&st, socket, o.shell)
		}
		if err != nil {
			e.Status = nil
			e.Error = err.Error()
			var unavailable *client.UnavailableError
			if errors.As(err, &unavailable) {
				e.Error = "not answering: " + unavailable.Err.Error()
			}
		}
		entries = append(entries, e)
	}
	if o.fleet != nil {
		entries = o.fleet.entries(entries)
	}
	if err := o.print(entries); err != nil {
		return err
	}
	if o.fleet != nil {
		return o.fleet.failures.Err()
	}
	return nil
}

// print prints the status's entries: as JSON or YAML (cluster text that
// YAML may not carry raw escaped, printing.MarshalYAML), or as tables.
func (o *CacheStatusOptions) print(entries []cacheEntry) error {
	if o.Output != "" {
		return printing.WriteData(o.Out, o.Output, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(o.ErrOut, "No caches running")
		return nil
	}
	return o.printTables(entries)
}

func (o *CacheStatusOptions) printTables(entries []cacheEntry) error {
	now := time.Now()
	notes := false
	for _, e := range entries {
		notes = notes || e.Shell != ""
	}
	var caches, types, recordings [][]string
	for _, e := range entries {
		if e.Status == nil {
			row := []string{"-", "-", "-", contextsOr(e.Contexts, "-"), "-", "-", "-", e.Socket + " (" + e.Error + ")"}
			if notes {
				row = append(row, "")
			}
			caches = append(caches, row)
			continue
		}
		st := e.Status
		pid := strconv.Itoa(st.Pid)
		idle := duration.HumanDuration(now.Sub(st.LastRequest))
		if st.Active > 0 {
			idle = fmt.Sprintf("busy (%d)", st.Active)
		}
		row := []string{pid, st.Server, st.User, contextsOr(e.Contexts, st.Context),
			duration.HumanDuration(now.Sub(st.Started)), idle,
			fmt.Sprintf("%dMi", st.RSSBytes>>20), e.Socket}
		if notes {
			row = append(row, e.Shell)
		}
		caches = append(caches, row)
		if rec := st.Recording; rec != nil {
			recordings = append(recordings, recordingRow(pid, rec))
		}
		for _, t := range st.Caches {
			ns := "(all)"
			if len(t.Namespaces) > 0 {
				ns = strings.Join(t.Namespaces, ",")
			}
			sel := strings.Trim(strings.Join([]string{t.LabelSelector, t.FieldSelector}, " "), " ")
			if sel == "" {
				sel = "<none>"
			}
			health := "healthy"
			switch {
			case !t.Synced:
				health = "syncing"
			case t.FailingSince != nil:
				health = fmt.Sprintf("failing since %s (%s ago)", t.FailingSince.UTC().Format(time.RFC3339), duration.HumanDuration(now.Sub(*t.FailingSince)))
			}
			users := strconv.Itoa(t.Users)
			if t.IdleSince != nil {
				users += " (idle " + duration.HumanDuration(now.Sub(*t.IdleSince)) + ")"
			}
			types = append(types, []string{pid, t.Type, ns, sel, t.Purpose, strconv.Itoa(t.Objects),
				printing.JoinOrNone(t.Indexes), users, health})
		}
	}
	header := []string{"PID", "SERVER", "USER", "CONTEXT", "UPTIME", "IDLE", "MEMORY", "SOCKET"}
	if notes {
		header = append(header, "SHELL")
	}
	if err := printing.WriteTable(o.Out, header, caches, false); err != nil {
		return err
	}
	if len(types) > 0 {
		fmt.Fprintln(o.Out)
		if err := printing.WriteTable(o.Out, []string{"PID", "TYPE", "NAMESPACES", "SELECTOR", "FOR", "OBJECTS", "INDEXES", "USERS", "WATCH"}, types, false); err != nil {
			return err
		}
	}
	if len(recordings) == 0 {
		return nil
	}
	fmt.Fprintln(o.Out)
	return printing.WriteTable(o.Out, []string{"PID", "RECORDING", "RETAIN", "TYPES", "SEGMENT", "SIZE", "FILES", "EVENTS", "STATE"}, recordings, false)
}

// recordingRow is the row of the recording table of a cache started with
// --record.
func recordingRow(pid string, rec *protocol.RecordingStatus) []string {
	segment, size := "<none>", "-"
	if rec.Segment != "" {
		segment = filepath.Base(rec.Segment)
		size = fmt.Sprintf("%.1fKi", float64(rec.SegmentBytes)/1024)
	}
	state := "recording"
	switch {
	case rec.LastError != "":
		state = "failing: " + rec.LastError
	case rec.Segment == "":
		state = "idle (no types held)"
	case rec.Overflows > 0:
		state = fmt.Sprintf("recording (%d overflows, %d events dropped)", rec.Overflows, rec.Dropped)
	}
	return []string{pid, rec.Dir, time.Duration(rec.Retain).String(), printing.JoinOrNone(rec.Types), segment, size,
		strconv.Itoa(rec.Files), strconv.FormatInt(rec.Events, 10), state}
}

// contextsOr is the CONTEXT cell of a cache: the selected contexts whose
// identity leads to it (with several contexts), or else.
func contextsOr(contexts []string, or string) string {
	if len(contexts) == 0 {
		return or
	}
	return strings.Join(contexts, ",")
}

// fleetStatus is what cache status lists across contexts: the selected
// contexts by the socket of their identity's cache (several contexts of
// one identity share it), in order, and the sockets in order of first
// context.
type fleetStatus struct {
	contexts map[string][]string
	sockets  []string
	// failures are the contexts that are missing or whose identity does
	// not resolve, each named on stderr.
	failures *targets.Failures
}

// entries returns the status's entries for the selected contexts, in their
// order: each running cache of all (the user's caches) whose socket a
// context's identity leads to, with its contexts, and an entry saying no
// cache runs for the others.
func (fs *fleetStatus) entries(all []cacheEntry) []cacheEntry {
	bySocket := map[string]cacheEntry{}
	for _, e := range all {
		bySocket[e.Socket] = e
	}
	out := make([]cacheEntry, 0, len(fs.sockets))
	for _, socket := range fs.sockets {
		e, ok := bySocket[socket]
		if !ok {
			e = cacheEntry{Socket: socket, Error: noCacheRuns}
		}
		e.Shell = ""
		e.Contexts = fs.contexts[socket]
		out = append(out, e)
	}
	return out
}

// noCacheRuns is the error of a status entry of a context whose identity
// has no cache.
const noCacheRuns = "no cache runs"
