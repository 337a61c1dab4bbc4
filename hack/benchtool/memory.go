package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// memoryResult is what one `benchtool memory` run prints: the heap a synced
// cache of one informer kind holds, per object.
type memoryResult struct {
	Kind          string        `json:"kind"`
	ManagedFields string        `json:"managedFields"`
	Objects       int           `json:"objects"`
	LiveBefore    uint64        `json:"liveBefore"`  // HeapAlloc after a GC, before the sync
	LiveAfter     uint64        `json:"liveAfter"`   // HeapAlloc after a GC, with the synced cache
	InuseBefore   uint64        `json:"inuseBefore"` // HeapInuse, same moments
	InuseAfter    uint64        `json:"inuseAfter"`
	Sync          time.Duration `json:"sync"`
}

func (m memoryResult) livePerObject() float64 {
	return float64(int64(m.LiveAfter)-int64(m.LiveBefore)) / float64(max(m.Objects, 1))
}

func (m memoryResult) inusePerObject() float64 {
	return float64(int64(m.InuseAfter)-int64(m.InuseBefore)) / float64(max(m.Objects, 1))
}

var managedFieldsModes = map[string]engine.ManagedFields{
	"drop":      engine.DropManagedFields,
	"summarize": engine.SummarizeManagedFields,
	"intern":    engine.InternManagedFields,
	"keep":      engine.KeepManagedFields,
}

// cmdMemory measures, in this process, what the plugin's engine keeps per
// cached object: it resolves the resource and builds the clients first (so
// discovery is not counted), takes the live heap after a forced GC, starts
// one informer of the given kind over every namespace with the given
// managedFields transform, waits for sync, and takes the live heap again
// after a forced GC, with the engine still referenced. The difference over
// the number of cached objects is the cache's cost per object: the objects
// as the informer keeps them, the store's map and the namespace index.
func cmdMemory(args []string) error {
	fs := flag.NewFlagSet("memory", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file")
	resource := fs.String("resource", "pods", "resource to cache")
	kind := fs.String("kind", "typed", "informer kind: typed, dynamic or metadata")
	mf := fs.String("managed-fields", "drop", "transform of managedFields: drop, summarize, intern or keep")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mode, ok := managedFieldsModes[*mf]
	if !ok {
		return fmt.Errorf("--managed-fields must be drop, summarize, intern or keep, got %q", *mf)
	}
	cfg := engine.Config{ManagedFields: mode, SyncTimeout: 5 * time.Minute}
	switch *kind {
	case "typed":
		cfg.FullObjects = true
	case "dynamic":
		cfg.FullObjects = true
	case "metadata":
	default:
		return fmt.Errorf("--kind must be typed, dynamic or metadata, got %q", *kind)
	}
	restConfig, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("loading %s: %w", *kubeconfig, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(restConfig)
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	clients, err := engine.NewAPIServer(restConfig, mapper, "kubectl-informer-bench-memory")
	if err != nil {
		return err
	}
	if *kind == "dynamic" {
		// Without a typed client, the API server source feeds built-in
		// types as JSON into unstructured objects, as it does custom ones.
		clients.Typed = nil
	}
	mappings, err := engine.Resolve(mapper, []string{*resource})
	if err != nil {
		return err
	}
	eng, err := engine.New(clients, mappings, cfg)
	if err != nil {
		return err
	}
	defer eng.Shutdown()

	res := memoryResult{Kind: *kind, ManagedFields: *mf}
	res.LiveBefore, res.InuseBefore = heapAfterGC()
	start := time.Now()
	if err := eng.Start(context.Background()); err != nil {
		return err
	}
	res.Sync = time.Since(start)
	res.Objects = eng.Types()[0].Len()
	res.LiveAfter, res.InuseAfter = heapAfterGC()
	runtime.KeepAlive(eng)
	return json.NewEncoder(os.Stdout).Encode(res)
}

// heapAfterGC returns the live heap and the heap in use right after a full
// collection, with freed memory returned to the OS first so HeapInuse is
// not padded by spans the next GC would free.
func heapAfterGC() (live, inuse uint64) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.HeapInuse
}
