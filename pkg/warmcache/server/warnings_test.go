package server

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestResourceOfPath(t *testing.T) {
	tests := []struct {
		path string
		want schema.GroupVersionResource
		ok   bool
	}{
		{"/api/v1/pods", schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true},
		{"/api/v1/namespaces/shop/pods", schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true},
		{"/api/v1/namespaces", schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, true},
		{"/apis/apps/v1/deployments", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true},
		{"/apis/example.com/v1beta1/namespaces/a/widgets/w1/status", schema.GroupVersionResource{Group: "example.com", Version: "v1beta1", Resource: "widgets"}, true},
		{"/k8s/clusters/c-1/api/v1/nodes", schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, true},
		{"/api/v1", schema.GroupVersionResource{}, false},
		{"/apis/apps/v1", schema.GroupVersionResource{}, false},
		{"/version", schema.GroupVersionResource{}, false},
	}
	for _, tt := range tests {
		got, ok := resourceOfPath(tt.path)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("resourceOfPath(%q) = %v, %v; want %v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

// printed collects what a subscription prints.
type printed struct {
	mu       sync.Mutex
	messages []string
}

func (p *printed) print(m string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.messages = append(p.messages, m)
}

func (p *printed) get() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.messages)
}

// TestWarnings: the warnings of a resource's list are held for a command
// until Release, then printed before it returns; a later watch's are
// printed as they come; other resources' never; none after Cancel.
func TestWarnings(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/apis/example.com/v1/namespaces/a/widgets" {
			w.Header().Add("Warning", `299 - "example.com/v1 Widget is deprecated; use example.com/v2 Widget"`)
			w.Header().Add("Warning", `299 - "second"`)
			w.Header().Add("Warning", `199 - "not a 299"`)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	w := NewWarnings()
	client := &http.Client{Transport: w.WrapTransport(http.DefaultTransport)}
	get := func(path string) {
		t.Helper()
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	gadgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}

	get("/apis/example.com/v1/namespaces/a/widgets?limit=500")
	var p, other printed
	sub := w.Subscribe([]schema.GroupVersionResource{widgets, widgets}, p.print)
	otherSub := w.Subscribe([]schema.GroupVersionResource{gadgets}, other.print)
	defer otherSub.Cancel()
	if got := p.get(); len(got) != 0 {
		t.Fatalf("printed before Release: %q", got)
	}
	sub.Release()
	want := []string{"example.com/v1 Widget is deprecated; use example.com/v2 Widget", "second"}
	if got := p.get(); !slices.Equal(got, want) {
		t.Fatalf("after Release: printed %q, want %q", got, want)
	}

	get("/apis/example.com/v1/namespaces/a/widgets?watch=true")
	want = append(want, want...)
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Equal(p.get(), want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := p.get(); !slices.Equal(got, want) {
		t.Fatalf("after a watch: printed %q, want %q", got, want)
	}
	sub.Cancel()
	get("/apis/example.com/v1/namespaces/a/widgets?watch=true")
	otherSub.Release()
	if got := p.get(); len(got) != len(want) {
		t.Errorf("after Cancel: printed %q, want nothing more", got[len(want):])
	}
	if got := other.get(); len(got) != 0 {
		t.Errorf("a subscription to gadgets printed %q", got)
	}

	// A response without warnings: a new command gets none.
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	get("/apis/example.com/v1/namespaces/a/widgets?watch=true")
	var later printed
	laterSub := w.Subscribe([]schema.GroupVersionResource{widgets}, later.print)
	laterSub.Release()
	laterSub.Cancel()
	if got := later.get(); len(got) != 0 {
		t.Errorf("after a response without warnings: printed %q", got)
	}
}
