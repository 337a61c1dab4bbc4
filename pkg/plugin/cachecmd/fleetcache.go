package cachecmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
)

// This file runs cache start, status and stop for each context of their
// targets (--context a,b, --context 'prod-*', --all-contexts): one warm
// cache per context, each its own process and socket for the identity of
// that context, as `cache start --context NAME` starts one.

// cacheFleetFlags are the flags of a cache subcommand that choose
// contexts besides --context.
type cacheFleetFlags targets.Flags

// addCacheFleetFlags adds --all-contexts to a cache subcommand; verb says
// what it does in each context.
func addCacheFleetFlags(cmd *cobra.Command, verb string) *cacheFleetFlags {
	f := &cacheFleetFlags{}
	cmd.Flags().BoolVar(&f.AllContexts, "all-contexts", false, verb+" for every context of the kubeconfig, one cache per context (see --context, which also takes several names joined by commas and shell-style patterns such as 'prod-*'). A context that fails is named on stderr, the others are done, and the exit code is 1.")
	return f
}

// isFleet reports whether contexts are chosen the fleet way.
func (f *cacheFleetFlags) isFleet(cf *genericclioptions.ConfigFlags) bool {
	return f != nil && (f.AllContexts || targets.IsSelection(targets.ContextFlag(cf)))
}

// cacheContexts returns the targets of a cache command (New).
func cacheContexts(cf *genericclioptions.ConfigFlags, f *cacheFleetFlags) (targets.Set, error) {
	return targets.New(cf, f.AllContexts, false)
}

// withContextArg returns the kubeconfig arguments of a cache process
// (kubeconfigArgs) for context name: any --context replaced by
// --context=name.
func withContextArg(args []string, name string) []string {
	out := make([]string, 0, len(args)+1)
	for _, a := range args {
		if a == "--context" || strings.HasPrefix(a, "--context=") {
			continue
		}
		out = append(out, a)
	}
	return append(out, "--context="+name)
}

// prefixLines writes text to w, each line prefixed with "context NAME: ".
func prefixLines(w io.Writer, name, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if line != "" {
			fmt.Fprintf(w, "context %s: %s\n", name, line)
		}
	}
}

// eachContext runs fn for each target of set, all at once, and then
// writes, target by target in the order selected, its stdout and stderr.
// The lines of several targets are prefixed by the context's name, and a
// context missing from the kubeconfig or whose fn fails is named on errOut;
// the error is then a *targets.PartialError. One target's lines are
// written as they are, and its error is the command's.
func eachContext(set targets.Set, out, errOut io.Writer, fn func(t targets.Target, out, errOut io.Writer) error) error {
	failures := set.Failures(errOut)
	type output struct{ out, errOut bytes.Buffer }
	results := targets.Run(context.Background(), set.Targets, 0, func(_ context.Context, t targets.Target) (*output, error) {
		o := &output{}
		return o, fn(t, &o.out, &o.errOut)
	})
	for _, r := range results {
		if !set.Several {
			if r.Value != nil {
				io.Copy(out, &r.Value.out)
				io.Copy(errOut, &r.Value.errOut)
			}
			return r.Err
		}
		if r.Value != nil {
			prefixLines(out, r.Target.Name, r.Value.out.String())
			prefixLines(errOut, r.Target.Name, r.Value.errOut.String())
		}
		if r.Err != nil {
			failures.Add(r.Target.Name, r.Err)
		}
	}
	return failures.Err()
}

// runCacheStart starts one warm cache per target, with o's flags and each
// target's own identity: the caches of several contexts start in
// parallel, those of one identity one after the other (the first starts
// it, the others find it running).
func runCacheStart(cmd *cobra.Command, o *CacheStartOptions, f *cacheFleetFlags) error {
	sel, err := cacheContexts(o.configFlags, f)
	if err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	var mu sync.Mutex
	bySocket := map[string]*sync.Mutex{}
	socketLock := func(socket string) *sync.Mutex {
		mu.Lock()
		defer mu.Unlock()
		if bySocket[socket] == nil {
			bySocket[socket] = &sync.Mutex{}
		}
		return bySocket[socket]
	}
	return eachContext(sel, o.Out, o.ErrOut, func(t targets.Target, out, errOut io.Writer) error {
		co := *o
		co.configFlags = t.ConfigFlags
		if sel.Several {
			co.kubeArgs = withContextArg(o.kubeArgs, t.Name)
		}
		co.Out, co.ErrOut = out, errOut
		if err := co.Complete(cmd, nil); err != nil {
			return err
		}
		lock := socketLock(co.id.Socket)
		lock.Lock()
		defer lock.Unlock()
		return co.Run(cmd.Context())
	})
}

// runCacheStop stops the warm cache of each target.
func runCacheStop(o *CacheStopOptions, f *cacheFleetFlags) error {
	sel, err := cacheContexts(o.configFlags, f)
	if err != nil {
		return err
	}
	return eachContext(sel, o.Out, o.ErrOut, func(t targets.Target, out, errOut io.Writer) error {
		id, err := engines.ResolveCacheIdentity(t.ConfigFlags)
		if err != nil {
			return err
		}
		if err := stopCache(id.Socket); errors.Is(err, client.ErrNoCache) {
			fmt.Fprintln(errOut, "no cache runs for this identity")
			return nil
		} else if err != nil {
			return err
		}
		fmt.Fprintf(out, "stopped the cache at %s\n", id.Socket)
		return nil
	})
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

// resolveFleetStatus resolves the socket of each selected context's cache,
// naming on errOut each context that fails.
func resolveFleetStatus(cf *genericclioptions.ConfigFlags, f *cacheFleetFlags, errOut io.Writer) (*fleetStatus, error) {
	sel, err := cacheContexts(cf, f)
	if err != nil {
		return nil, err
	}
	fs := &fleetStatus{contexts: map[string][]string{}, failures: sel.Failures(errOut)}
	for _, t := range sel.Targets {
		name := t.Name
		id, err := engines.ResolveCacheIdentity(t.ConfigFlags)
		if err != nil {
			fs.failures.Add(name, err)
			continue
		}
		if _, ok := fs.contexts[id.Socket]; !ok {
			fs.sockets = append(fs.sockets, id.Socket)
		}
		fs.contexts[id.Socket] = append(fs.contexts[id.Socket], name)
	}
	return fs, nil
}

// err is the status command's error: a *targets.PartialError when a context
// failed.
func (fs *fleetStatus) err() error { return fs.failures.Err() }

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
