package cachecmd

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// TestShellNote: cache status says which cache this shell uses, and marks
// one of the same server, user, context and --as that it does not use: its
// credentials differ (a rotated token).
func TestShellNote(t *testing.T) {
	shell := shellIdentity{socket: "/run/ki/aaa.sock", server: "https://k:6443", user: "alice", context: "prod"}
	tests := []struct {
		name   string
		socket string
		st     protocol.Status
		want   string
	}{
		{"this shell's cache", "/run/ki/aaa.sock", protocol.Status{Server: "https://k:6443", User: "alice", Context: "prod"}, usedByShell},
		{"rotated token", "/run/ki/bbb.sock", protocol.Status{Server: "https://k:6443", User: "alice", Context: "prod"}, credentialsDiffer},
		{"another user", "/run/ki/ccc.sock", protocol.Status{Server: "https://k:6443", User: "bob", Context: "prod"}, ""},
		{"impersonating", "/run/ki/ddd.sock", protocol.Status{Server: "https://k:6443", User: "alice as viewer", Context: "prod"}, ""},
		{"another server", "/run/ki/eee.sock", protocol.Status{Server: "https://other:6443", User: "alice", Context: "prod"}, ""},
		{"another context", "/run/ki/fff.sock", protocol.Status{Server: "https://k:6443", User: "alice", Context: "dev"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shellNote(&tt.st, tt.socket, shell); got != tt.want {
				t.Errorf("shellNote(%+v, %s) = %q, want %q", tt.st, tt.socket, got, tt.want)
			}
		})
	}
	if got := shellNote(&tests[1].st, tests[1].socket, shellIdentity{}); got != "" {
		t.Errorf("shellNote without a resolved shell identity = %q, want none", got)
	}
}

func TestFleetStatusEntries(t *testing.T) {
	fs := &fleetStatus{
		contexts: map[string][]string{"/s/2": {"b"}, "/s/1": {"a", "a2"}, "/s/3": {"c"}},
		sockets:  []string{"/s/2", "/s/1", "/s/3"},
	}
	all := []cacheEntry{
		{Socket: "/s/1", Status: &protocol.Status{Pid: 1}, Shell: usedByShell},
		{Socket: "/s/9", Status: &protocol.Status{Pid: 9}},
		{Socket: "/s/2", Status: &protocol.Status{Pid: 2}},
	}
	got := fs.entries(all)
	want := []cacheEntry{
		{Socket: "/s/2", Status: &protocol.Status{Pid: 2}, Contexts: []string{"b"}},
		{Socket: "/s/1", Status: &protocol.Status{Pid: 1}, Contexts: []string{"a", "a2"}},
		{Socket: "/s/3", Error: noCacheRuns, Contexts: []string{"c"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n%+v\nwant\n%+v", got, want)
	}
}

func TestCacheStatusFleetTable(t *testing.T) {
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	o := &CacheStatusOptions{IOStreams: streams}
	err := o.printTables([]cacheEntry{
		{Socket: "/s/1", Status: &protocol.Status{Pid: 1, Server: "https://a", User: "admin", Context: "started-as"}, Contexts: []string{"a", "a2"}},
		{Socket: "/s/3", Error: noCacheRuns, Contexts: []string{"c"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("table:\n%s", out)
	}
	if f := strings.Fields(lines[1]); f[3] != "a,a2" {
		t.Errorf("CONTEXT of the running cache %q, want a,a2:\n%s", f[3], out)
	}
	if f := strings.Fields(lines[2]); f[3] != "c" || !strings.Contains(lines[2], "(no cache runs)") {
		t.Errorf("row of c: %q", lines[2])
	}
}
