package engine

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestMatchesPath(t *testing.T) {
	pods := &Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Scope: meta.RESTScopeNamespace}}
	widgets := &Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, Scope: meta.RESTScopeNamespace}}
	nodes := &Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, Scope: meta.RESTScopeRoot}}
	tests := []struct {
		t    *Type
		path string
		want bool
	}{
		{pods, "/api/v1/pods", true},
		{pods, "/api/v1/namespaces/shop/pods", true},
		{pods, "/api/v1/namespaces/shop/pods/web-1", false},
		{pods, "/api/v1/namespaces/shop/configmaps", false},
		{pods, "/apis/example.com/v1/pods", false},
		{widgets, "/apis/example.com/v1/namespaces/a/widgets", true},
		{widgets, "/apis/example.com/v1/widgets", true},
		{nodes, "/api/v1/nodes", true},
		{nodes, "/api/v1/namespaces/x/nodes", false},
	}
	for _, tt := range tests {
		if got := tt.t.matchesPath(tt.path); got != tt.want {
			t.Errorf("%s.matchesPath(%q) = %v, want %v", tt.t.Name(), tt.path, got, tt.want)
		}
	}
}

// failingBody returns err from every Read.
type failingBody struct{ err error }

func (b failingBody) Read([]byte) (int, error) { return 0, b.err }
func (b failingBody) Close() error             { return nil }

type bodyTransport struct{ body io.ReadCloser }

func (t bodyTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Body: t.body}, nil
}

func TestMonitorReportsBrokenWatchStreams(t *testing.T) {
	lost := errors.New("http2: client connection lost")
	tests := []struct {
		name       string
		url        string
		readErr    error
		closeFirst bool
		want       []string // errors reported, in order; "" is a success
	}{
		{"broken watch", "/api/v1/pods?watch=true", lost, false, []string{"", "watch stream broken: " + lost.Error()}},
		{"watch ended by the server", "/api/v1/pods?watch=true", io.EOF, false, []string{""}},
		{"watch closed by the client", "/api/v1/pods?watch=true", lost, true, []string{""}},
		{"watch cancelled", "/api/v1/pods?watch=true", context.Canceled, false, []string{""}},
		{"list", "/api/v1/pods", lost, false, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			observe := func(path string, watch bool, err error) {
				if err == nil {
					got = append(got, "")
				} else {
					got = append(got, err.Error())
				}
			}
			req := httptest.NewRequest(http.MethodGet, tt.url, nil)
			req = req.WithContext(withRequestOptions(req.Context(), &requestOptions{observe: observe}))
			resp, err := monitorRequests(bodyTransport{failingBody{tt.readErr}}).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			if tt.closeFirst {
				resp.Body.Close()
			}
			for range 3 {
				resp.Body.Read(make([]byte, 8))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("reported %q, want %q", got, tt.want)
			}
		})
	}
}
