package cachecmd

import (
	"testing"

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
