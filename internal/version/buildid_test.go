package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildIDIsGoBuildID: BuildID of the running test binary is the build
// ID `go tool buildid` reads from it, and two different binaries have
// different ones.
func TestBuildIDIsGoBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Fatalf("go tool buildid %s: %v", exe, err)
	}
	want := strings.TrimSpace(string(out))
	if got := BuildID(); got != want {
		t.Errorf("BuildID() = %q, want %q (go tool buildid)", got, want)
	}

	// Another program: a different build ID.
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	build := exec.Command("go", "build", "-o", other, src)
	build.Env = append(os.Environ(), "GO111MODULE=off", "GOFLAGS=")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building another program: %v\n%s", err, b)
	}
	id, err := goBuildID(other)
	if err != nil {
		t.Fatal(err)
	}
	if id == "" || id == want {
		t.Errorf("goBuildID(another program) = %q, want a build ID other than %q", id, want)
	}
}
