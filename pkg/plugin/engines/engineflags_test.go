package engines

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// TestStartEngineNamesTheSyncTimeoutFlag starts an engine against a server
// that never answers, and one whose list never ends, and checks the message
// the user sees.
func TestStartEngineNamesTheSyncTimeoutFlag(t *testing.T) {
	for _, tt := range []struct {
		name    string
		headers bool // the server answers with its headers
		want    string
	}{
		{"silent", false, "timed out after 100ms waiting for the API server at SERVER: it answered none of the command's requests (raise --sync-timeout for a slow server)"},
		{"slow list", true, "timed out after 100ms waiting for the cache of [pods (0 objects received)] to sync (raise --sync-timeout for very large lists)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.headers {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusOK)
					w.(http.Flusher).Flush()
				}
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
			if want := strings.ReplaceAll(tt.want, "SERVER", srv.URL); err == nil || err.Error() != want {
				t.Errorf("StartEngine() = %v, want %q", err, want)
			}
		})
	}
}
