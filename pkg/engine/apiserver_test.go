package engine

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

func TestPlainWatchStreams(t *testing.T) {
	var mu sync.Mutex
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Get("Accept-Encoding")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	tests := []struct {
		name  string
		plain bool
		watch bool
		want  string
	}{
		{"watch, plain streams asked", true, true, "identity"},
		{"list, plain streams asked", true, false, "gzip"},
		{"watch, plain streams not asked", false, true, "gzip"},
		{"list, plain streams not asked", false, false, "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewAPIServer(&rest.Config{Host: srv.URL}, nil, "test")
			if err != nil {
				t.Fatal(err)
			}
			rc, err := c.Typed.RESTClient(schema.GroupVersion{Version: "v1"})
			if err != nil {
				t.Fatal(err)
			}
			req := rc.Get().AbsPath("/api/v1/pods")
			if tt.watch {
				req = req.Param("watch", "true")
			}
			ctx := withRequestOptions(context.Background(), &requestOptions{plainWatches: tt.plain})
			body, err := req.Stream(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, body)
			body.Close()
			mu.Lock()
			defer mu.Unlock()
			if got != tt.want {
				t.Errorf("Accept-Encoding = %q, want %q", got, tt.want)
			}
		})
	}
}
