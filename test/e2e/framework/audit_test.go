package framework

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckPluginReadOnly(t *testing.T) {
	const (
		pluginList   = `{"stage":"ResponseComplete","verb":"list","requestURI":"/api/v1/pods","userAgent":"kubectl-informer/v1.0.0 (linux/amd64) abc"}`
		pluginCreate = `{"stage":"ResponseComplete","verb":"create","requestURI":"/api/v1/namespaces/a/pods","user":{"username":"admin"},"userAgent":"kubectl-informer/v1.0.0 (linux/amd64) abc"}`
		testCreate   = `{"stage":"ResponseComplete","verb":"create","requestURI":"/api/v1/namespaces/a/pods","userAgent":"watch.test/v0.0.0"}`
	)
	tests := []struct {
		name      string
		logs      map[string]string
		wantErr   string
		wantLists int
	}{
		{"only reads by the plugin, writes by tests", map[string]string{"audit.log": pluginList + "\n" + testCreate + "\n"}, "", 1},
		{"a write by the plugin", map[string]string{"audit.log": pluginList + "\n" + pluginCreate + "\n"}, "create /api/v1/namespaces/a/pods as admin", 1},
		{"a write through a second apiserver", map[string]string{"audit.log": pluginList + "\n", "second-audit.log": pluginCreate + "\n"}, "second-audit.log", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.logs {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			verbs, err := checkPluginReadOnly(dir)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
			if verbs["list"] != tt.wantLists {
				t.Errorf("list count = %d, want %d", verbs["list"], tt.wantLists)
			}
		})
	}
}
