package cacheserver

import (
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// TestAddIndexesConcurrently adds different indexes to one entry from many
// goroutines, as concurrent commands acquiring one warm type do, while others
// query the indexes and read the entry's index list. Under -race it fails if
// anything reads client-go's indexers map unlocked.
func TestAddIndexesConcurrently(t *testing.T) {
	informer := toolscache.NewSharedIndexInformer(&toolscache.ListWatch{}, &corev1.Pod{}, 0,
		toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	if err := informer.GetIndexer().Add(&corev1.Pod{}); err != nil {
		t.Fatal(err)
	}
	typ := &cache.Type{Informers: []toolscache.SharedIndexInformer{informer}}
	e := &entry{indexes: map[string]struct{}{toolscache.NamespaceIndex: {}}}
	set := (*index.Set)(nil)
	const workers = 8
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				name := fmt.Sprintf("label:k%d", (w+i)%12)
				def, err := set.Lookup(name)
				if err != nil {
					t.Error(err)
					return
				}
				if err := e.addIndexes(typ, []index.Definition{def}); err != nil {
					t.Errorf("addIndexes(%s) = %v", name, err)
					return
				}
				if _, err := index.Keys(informer.GetIndexer(), []index.Selector{{Name: name, Operator: index.Exists}}); err != nil {
					t.Errorf("Keys(%s) = %v", name, err)
				}
				e.mu.Lock()
				_ = len(e.indexes)
				e.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if got, want := len(e.indexes), 13; got != want {
		t.Errorf("entry has %d indexes, want %d (namespace and label:k0..11)", got, want)
	}
}
