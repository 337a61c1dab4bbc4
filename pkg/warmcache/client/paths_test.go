package client

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckDir(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(root, name)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	private := mk("private", 0o700)
	open := mk("open", 0o755)
	group := mk("group", 0o710)
	link := filepath.Join(root, "link")
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		dir    string
		unsafe bool
	}{
		{"0700, own", private, false},
		{"0755", open, true},
		{"0710", group, true},
		{"symbolic link", link, true},
		{"a file", file, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDir(tt.dir)
			if got := errors.Is(err, ErrUnsafeDir); got != tt.unsafe {
				t.Errorf("CheckDir(%s) = %v, want unsafe %v", tt.dir, err, tt.unsafe)
			}
		})
	}
}

func TestEnsureDirCreatesPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "kubectl-informer")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o700 {
		t.Errorf("EnsureDir made mode %04o, want 0700", perm)
	}
}

func TestDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if got, _ := Dir(); got != "/run/user/1000/kubectl-informer" {
		t.Errorf("Dir() with XDG_RUNTIME_DIR = %s", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("HOME", "/home/u")
	if got, _ := Dir(); got != "/home/u/.kube/cache/kubectl-informer" {
		t.Errorf("Dir() without XDG_RUNTIME_DIR = %s", got)
	}
}
