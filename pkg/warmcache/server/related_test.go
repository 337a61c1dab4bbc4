package server

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// refusedEngine is a fake engine whose start the API server refuses.
type refusedEngine struct {
	*fakeEngine
	err error
}

func (r refusedEngine) Start(ctx context.Context) error { return r.err }

var secretsMapping = &meta.RESTMapping{
	Resource:         schema.GroupVersionResource{Version: "v1", Resource: "secrets"},
	GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Secret"},
	Scope:            meta.RESTScopeNamespace,
}

// refuseSecrets makes fp's engines of secrets fail to start with a 403.
func refuseSecrets(fp *fakePool) error {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New(`User "u" cannot list resource "secrets"`))
	newFake := fp.newEngine
	fp.newEngine = func(mapping *meta.RESTMapping, cfg engine.Config) (poolEngine, error) {
		e, err := newFake(mapping, cfg)
		if err != nil || mapping.Resource.Resource != "secrets" {
			return e, err
		}
		return refusedEngine{fakeEngine: e.(*fakeEngine), err: forbidden}, nil
	}
	return forbidden
}

// TestPoolTypesReportsUnreadable checks that a related type the identity
// may not read is reported in Unreadable, as engine.StartEach reports it,
// and the others are leased.
func TestPoolTypesReportsUnreadable(t *testing.T) {
	fp := newFakePool(t, 0)
	forbidden := refuseSecrets(fp)
	each, err := PoolTypes{Pool: fp.Pool}.Start(t.Context(), []*meta.RESTMapping{secretsMapping, podsMapping}, engine.Config{})
	defer each.Shutdown()
	if err != nil {
		t.Fatalf("Start(secrets, pods) = %v, want the pods and secrets unreadable", err)
	}
	if len(each.Types) != 1 || each.Types[0].Mapping != podsMapping {
		t.Errorf("Start(secrets, pods).Types = %v, want pods", each.Types)
	}
	if len(each.Unreadable) != 1 || each.Unreadable[0].Name != "secrets" || each.Unreadable[0].Err.Error() != forbidden.Error() {
		t.Errorf("Start(secrets, pods).Unreadable = %+v, want secrets: %v", each.Unreadable, forbidden)
	}
	if st := fp.Status(); len(st) != 1 || st[0].Type != "pods" {
		t.Errorf("the pool holds %+v, want pods only: a refused entry is removed", st)
	}
}

// TestPoolTypesReleaseOnShutdown checks that the Each's Shutdown ends the
// leases, once, and leaves the related types warm in the pool.
func TestPoolTypesReleaseOnShutdown(t *testing.T) {
	fp := newFakePool(t, time.Hour)
	each, err := PoolTypes{Pool: fp.Pool}.Start(t.Context(), []*meta.RESTMapping{podsMapping}, engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if st := fp.Status(); len(st) != 1 || st[0].Users != 1 {
		t.Fatalf("while the related types are used, the pool holds %+v, want pods with 1 user", st)
	}
	each.Shutdown()
	each.Shutdown()
	st := fp.Status()
	if len(st) != 1 || st[0].Users != 0 || st[0].IdleSince == nil {
		t.Errorf("after Shutdown, the pool holds %+v, want pods idle, without users", st)
	}
	if fp.engines[0].shutdown.Load() {
		t.Error("Shutdown stopped the pool's engine; it must stay warm")
	}
}

// TestPoolTypesShareTheEntryOfAllNamespaces checks that a command's
// relations of some namespaces read a synced entry of all namespaces
// through a view, as the command's own types do, and that a later command
// asking for the indexes the relations added (node, owner-uid) gets them.
func TestPoolTypesShareTheEntryOfAllNamespaces(t *testing.T) {
	fp := newFakePool(t, 0)
	all := fp.acquire(t, engine.Config{})
	defer all.Shutdown()
	each, err := PoolTypes{Pool: fp.Pool}.Start(t.Context(), []*meta.RESTMapping{podsMapping}, engine.Config{Namespaces: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	defer each.Shutdown()
	if fp.created() != 1 {
		t.Errorf("the related pods of namespace a started an engine of their own")
	}
	objs, err := each.Types[0].Lookup(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Errorf("the related pods of namespace a hold %d objects, want 2 (a/db, a/web)", len(objs))
	}
	var defs []index.Definition
	for _, name := range []string{"node", "owner-uid"} {
		def, err := (*index.Set)(nil).Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		defs = append(defs, def)
	}
	// What the relations do when following nodes and owners.
	if err := each.Types[0].EnsureIndexes(defs...); err != nil {
		t.Fatal(err)
	}
	later, err := fp.Acquire(t.Context(), []*meta.RESTMapping{podsMapping}, engine.Config{Indexes: defs}, Options{})
	if err != nil {
		t.Fatalf("Acquire with the node and owner-uid indexes the relations added = %v", err)
	}
	defer later.Shutdown()
	if got := wideStatus(fp.Status()).Indexes; !slices.Equal(got, []string{"node", "owner-uid"}) {
		t.Errorf("the entry's indexes = %v, want [node owner-uid]", got)
	}
}
