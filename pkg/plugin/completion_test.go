package plugin

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/completion"
)

// runComplete runs `kubectl-informer __complete args…` through the root
// command as the kubectl_complete-informer script does, and returns the
// completions and the directive line (":6" and the like). --cache-dir is a
// fresh directory so no test reads another's discovery cache.
func runComplete(t *testing.T, args ...string) (completions []string, directive string) {
	t.Helper()
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	cmd := NewCmdRoot(streams)
	cmd.SetArgs(append([]string{"__complete", "--cache-dir", t.TempDir()}, args...))
	cmd.SetOut(out)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("__complete %q: %v", args, err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	for _, line := range lines {
		if strings.HasPrefix(line, ":") {
			directive = line
			continue
		}
		if strings.HasPrefix(line, "Completion ended with directive") {
			continue
		}
		value, _, _ := strings.Cut(line, "\t") // drop a description
		completions = append(completions, value)
	}
	return completions, directive
}

func TestCompleteFlags(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		want          []string // each must be offered
		notWant       []string // none may be offered
		wantDirective string
	}{
		{
			name:          "query --index names",
			args:          []string{"query", "po", "--index", ""},
			want:          []string{"namespace=", "label:", "annotation:", "owner=", "owner-uid=", "node=", "phase=", "image="},
			notWant:       []string{"label:KEY", "label:=", "node"},
			wantDirective: ":6", // no space, no files
		},
		{
			name:          "query --index prefix",
			args:          []string{"query", "po", "--index", "la"},
			want:          []string{"label:"},
			notWant:       []string{"node=", "annotation:"},
			wantDirective: ":6",
		},
		{
			name:          "query --index custom index",
			args:          []string{"query", "po", "--indexer", "img={.spec.containers[*].image}", "--indexer", "bad", "--index", ""},
			want:          []string{"img=", "node="},
			notWant:       []string{"bad="},
			wantDirective: ":6",
		},
		{
			name:          "query --index has no value",
			args:          []string{"query", "po", "--index", "!no"},
			want:          []string{"!node", "!node.label:"},
			notWant:       []string{"node=", "!node="},
			wantDirective: ":6", // "!node.label:" wants more typed
		},
		{
			name:          "query --sort-by",
			args:          []string{"query", "po", "--sort-by", "{.metadata.c"},
			want:          []string{"{.metadata.creationTimestamp}"},
			wantDirective: ":4",
		},
		{
			name:          "query --index after the name",
			args:          []string{"query", "po", "--index", "node="},
			wantDirective: ":4",
		},
		{
			name:          "query --group-by",
			args:          []string{"query", "po", "--group-by", ""},
			want:          []string{"node", "phase", "label:", "annotation:"},
			notWant:       []string{"node="},
			wantDirective: ":6",
		},
		{
			name:          "query --group-by fixed name only",
			args:          []string{"query", "po", "--group-by", "ph"},
			want:          []string{"phase"},
			wantDirective: ":4", // a space after a complete name
		},
		{
			name:          "query -o",
			args:          []string{"query", "po", "-o", ""},
			want:          []string{"json", "yaml", "name", "wide", "custom-columns=", "jsonpath="},
			notWant:       []string{"text"},
			wantDirective: ":6",
		},
		{
			name:          "watch --where names",
			args:          []string{"watch", "po", "--where", ""},
			want:          []string{"node=", "phase=", "label:"},
			wantDirective: ":6",
		},
		{
			name:          "watch --output",
			args:          []string{"watch", "po", "--output", ""},
			want:          []string{"text", "json", "yaml", "name"},
			notWant:       []string{"wide", "custom-columns="},
			wantDirective: ":4",
		},
		{
			name:          "watch --diff",
			args:          []string{"watch", "po", "--diff", ""},
			want:          []string{"compact", "unified", "none"},
			wantDirective: ":4",
		},
		{
			name:          "watch --color",
			args:          []string{"watch", "po", "--color", "a"},
			want:          []string{"auto", "always"},
			notWant:       []string{"never"},
			wantDirective: ":4",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, directive := runComplete(t, tt.args...)
			for _, w := range tt.want {
				if n := count(got, w); n != 1 {
					t.Errorf("__complete %q = %q, want it to offer %q once, not %d times", tt.args, got, w, n)
				}
			}
			for _, nw := range tt.notWant {
				if slices.Contains(got, nw) {
					t.Errorf("__complete %q = %q, want it not to offer %q", tt.args, got, nw)
				}
			}
			if directive != tt.wantDirective {
				t.Errorf("__complete %q directive = %s, want %s", tt.args, directive, tt.wantDirective)
			}
		})
	}
}

// count returns how many times value is in values.
func count(values []string, value string) int {
	n := 0
	for _, v := range values {
		if v == value {
			n++
		}
	}
	return n
}

func TestCompletionsOnlyForFlagsTheCommandHas(t *testing.T) {
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	root := NewCmdRoot(streams)
	for _, tt := range []struct {
		cmd     string
		flag    string
		present bool
	}{
		{"query", "index", true},
		{"query", "group-by", true},
		{"query", "output", true},
		{"query", "where", false},
		{"query", "diff", false},
		{"query", "color", false},
		{"watch", "where", true},
		{"watch", "diff", true},
		{"watch", "color", true},
		{"watch", "output", true},
		{"watch", "index", false},
		{"watch", "group-by", true},
	} {
		sub, _, err := root.Find([]string{tt.cmd})
		if err != nil {
			t.Fatalf("finding %s: %v", tt.cmd, err)
		}
		if _, ok := sub.GetFlagCompletionFunc(tt.flag); ok != tt.present {
			t.Errorf("%s --%s has a completion function: %v, want %v", tt.cmd, tt.flag, ok, tt.present)
		}
		if sub.ValidArgsFunction == nil {
			t.Errorf("%s has no ValidArgsFunction", tt.cmd)
		}
	}
}

// discoveryServer serves legacy discovery for pods (with the subresource
// pods/log), bindings (create only), namespaces and apps/v1 deployments.
func discoveryServer(t *testing.T) *httptest.Server {
	t.Helper()
	verbs := metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}
	docs := map[string]any{
		"/api": metav1.APIVersions{
			TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
			Versions: []string{"v1"},
		},
		"/api/v1": metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "v1",
			APIResources: []metav1.APIResource{
				{Name: "pods", Namespaced: true, Kind: "Pod", ShortNames: []string{"po"}, Verbs: verbs},
				{Name: "pods/log", Namespaced: true, Kind: "Pod", Verbs: metav1.Verbs{"get"}},
				{Name: "bindings", Namespaced: true, Kind: "Binding", Verbs: metav1.Verbs{"create"}},
				{Name: "namespaces", Kind: "Namespace", ShortNames: []string{"ns"}, Verbs: verbs},
			},
		},
		"/apis": metav1.APIGroupList{
			TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
			Groups: []metav1.APIGroup{{
				Name:             "apps",
				Versions:         []metav1.GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}},
				PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"},
			}},
		},
		"/apis/apps/v1": metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "apps/v1",
			APIResources: []metav1.APIResource{
				{Name: "deployments", Namespaced: true, Kind: "Deployment", ShortNames: []string{"deploy"}, Verbs: verbs},
			},
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(doc); err != nil {
			t.Errorf("encoding %s: %v", r.URL.Path, err)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCompleteResourceTypes(t *testing.T) {
	srv := discoveryServer(t)
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{
			name:    "query types",
			args:    []string{"query", ""},
			want:    []string{"pods", "po", "namespaces", "ns", "deployments", "deploy"},
			notWant: []string{"bindings", "pods/log"},
		},
		{
			name:    "prefix",
			args:    []string{"query", "de"},
			want:    []string{"deployments", "deploy"},
			notWant: []string{"pods", "po"},
		},
		{
			name:    "after a comma",
			args:    []string{"query", "deploy,p"},
			want:    []string{"deploy,pods", "deploy,po"},
			notWant: []string{"pods", "deploy,deploy"},
		},
		{
			name: "watch types",
			args: []string{"watch", "n"},
			want: []string{"namespaces", "ns"},
		},
		{
			name:    "watch names are not completed",
			args:    []string{"watch", "pods", ""},
			notWant: []string{"pods", "po"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--server", srv.URL}, tt.args...)
			got, directive := runComplete(t, args...)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("__complete %q = %q, want it to offer %q", tt.args, got, w)
				}
			}
			for _, nw := range tt.notWant {
				if slices.Contains(got, nw) {
					t.Errorf("__complete %q = %q, want it not to offer %q", tt.args, got, nw)
				}
			}
			if directive != ":4" {
				t.Errorf("__complete %q directive = %s, want :4 (no files)", tt.args, directive)
			}
		})
	}
}

func TestCompleteResourceTypesWithoutCluster(t *testing.T) {
	saved := completion.CompletionTimeout
	completion.CompletionTimeout = 500 * time.Millisecond
	t.Cleanup(func() { completion.CompletionTimeout = saved })

	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(release) })

	tests := []struct {
		name      string
		args      []string
		wantEmpty bool
	}{
		// Without a kubeconfig client-go tries http://localhost:8080, which
		// may answer on some machines; only the time bound is checked.
		{"no kubeconfig", []string{"query", ""}, false},
		{"closed port", []string{"--server", "https://127.0.0.1:1", "query", ""}, true},
		{"server that never answers", []string{"--server", hanging.URL, "query", ""}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, directive := runComplete(t, tt.args...)
			if tt.wantEmpty && len(got) != 0 {
				t.Errorf("__complete %q = %q, want nothing", tt.args, got)
			}
			if directive != ":4" {
				t.Errorf("__complete %q directive = %s, want :4 (no files)", tt.args, directive)
			}
			if took := time.Since(start); took > 5*completion.CompletionTimeout {
				t.Errorf("__complete %q took %s, want it bounded by about %s", tt.args, took, completion.CompletionTimeout)
			}
		})
	}
}
