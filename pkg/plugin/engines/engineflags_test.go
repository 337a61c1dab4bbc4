package engines

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// TestStartEngineNamesTheSyncTimeoutFlag starts an engine against a server
// that never answers and checks the message the user sees.
func TestStartEngineNamesTheSyncTimeoutFlag(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done)
	clients, err := engine.NewAPIServer(&rest.Config{Host: srv.URL}, nil, "plugin-test")
	if err != nil {
		t.Fatal(err)
	}
	pods := &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Scope:            meta.RESTScopeNamespace,
	}
	eng, err := engine.New(clients, []*meta.RESTMapping{pods}, engine.Config{SyncTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Shutdown()
	err = StartEngine(t.Context(), eng)
	want := "timed out after 100ms waiting for the cache of [pods (0 objects received)] to sync (raise --sync-timeout for very large lists)"
	if err == nil || err.Error() != want {
		t.Errorf("startEngine() = %v, want %q", err, want)
	}
}
