package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/internal/krew"
)

// packFakeRelease packs, with the pack command, an archive per platform
// into a new directory the way hack/dist does, with scripts for binaries.
func packFakeRelease(t *testing.T, version string) string {
	t.Helper()
	src := t.TempDir()
	bin := filepath.Join(src, "bin")
	license := filepath.Join(src, "LICENSE")
	shim := filepath.Join(src, "shim")
	for file, mode := range map[string]os.FileMode{bin: 0o755, license: 0o644, shim: 0o755} {
		if err := os.WriteFile(file, []byte(filepath.Base(file)), mode); err != nil {
			t.Fatal(err)
		}
	}
	dist := t.TempDir()
	for _, p := range []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64", "windows_arm64"} {
		name, ext := "kubectl-informer", ".tar.gz"
		if strings.HasPrefix(p, "windows") {
			name, ext = "kubectl-informer.exe", ".zip"
		}
		out := filepath.Join(dist, "kubectl-informer_"+version+"_"+p+ext)
		args := []string{"pack", "-o", out, "-mtime", "1700000000",
			name + "=" + bin, "LICENSE=" + license, "kubectl_complete-informer=" + shim}
		if err := run(args, new(bytes.Buffer)); err != nil {
			t.Fatalf("krewtool %q: %v", args, err)
		}
	}
	return dist
}

func TestRender(t *testing.T) {
	dist := packFakeRelease(t, "v1.2.3")
	var out bytes.Buffer
	args := []string{"render", "-template", filepath.Join("..", "..", ".krew.yaml"), "-dist", dist, "-tag", "v1.2.3"}
	if err := run(args, &out); err != nil {
		t.Fatalf("krewtool %q: %v", args, err)
	}
	plugin, err := krew.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := krew.Validate(plugin, "informer"); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
	pl, ok := plugin.PlatformFor("windows", "arm64")
	if !ok {
		t.Fatal("no windows/arm64 platform")
	}
	want := filepath.Join(dist, "kubectl-informer_v1.2.3_windows_arm64.zip")
	if got, _ := krew.FilePath(pl.URI); got != want {
		t.Errorf("windows/arm64 uri = %s, want file://%s", pl.URI, want)
	}
	if sum, _ := krew.SHA256File(want); pl.Sha256 != sum {
		t.Errorf("windows/arm64 sha256 = %s, want %s", pl.Sha256, sum)
	}
}

func TestRenderErrors(t *testing.T) {
	dist := packFakeRelease(t, "v1.2.3")
	template := filepath.Join("..", "..", ".krew.yaml")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"archives of another version", []string{"render", "-template", template, "-dist", dist, "-tag", "v9.9.9"}, "kubectl-informer_v9.9.9_linux_amd64.tar.gz"},
		{"not a semantic version", []string{"render", "-template", template, "-dist", packFakeRelease(t, "latest"), "-tag", "latest"}, `spec.version "latest" is not a semantic version`},
		{"no tag", []string{"render", "-template", template, "-dist", dist}, "-tag is required"},
		{"unknown command", []string{"publish"}, `unknown command "publish"`},
		{"pack without entries", []string{"pack", "-o", filepath.Join(t.TempDir(), "x.zip")}, "no NAME=FILE entries"},
		{"pack to an unknown format", []string{"pack", "-o", filepath.Join(t.TempDir(), "x.rar"), "LICENSE=" + template}, "want a .tar.gz, .tgz or .zip name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(tt.args, new(bytes.Buffer))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("krewtool %q error = %v, want one containing %q", tt.args, err, tt.want)
			}
		})
	}
}
