package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/clientcmd"
)

// rawWatcher is a reference watch in the harness: a metadata-only protobuf
// watch of the same pods, which stamps each event as it arrives. Its lag
// is what the apiserver and the machine add; the plugin's lag minus this,
// per resourceVersion, is what the plugin adds.
type rawWatcher struct {
	mu      sync.Mutex
	arrived map[string]time.Time // resourceVersion → arrival
	done    chan struct{}
	cancel  context.CancelFunc
}

func (b *bench) startRawWatch(ctx context.Context, namespace string) (*rawWatcher, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", b.kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "kubectl-informer-bench-rawwatch"
	client, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	pods := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace(namespace)
	// Watch from the current resourceVersion: no synthetic ADDED events
	// for what exists.
	list, err := pods.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("raw watch: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	wi, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("raw watch: %w", err)
	}
	rw := &rawWatcher{arrived: map[string]time.Time{}, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(rw.done)
		defer wi.Stop()
		for ev := range wi.ResultChan() {
			now := time.Now()
			if m, ok := ev.Object.(*metav1.PartialObjectMetadata); ok {
				rw.mu.Lock()
				rw.arrived[m.ResourceVersion] = now
				rw.mu.Unlock()
			}
		}
	}()
	return rw, nil
}

// stop ends the watch and returns the arrivals.
func (rw *rawWatcher) stop() map[string]time.Time {
	rw.cancel()
	<-rw.done
	return rw.arrived
}
