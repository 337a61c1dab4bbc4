package client

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// dirName is the directory under $XDG_RUNTIME_DIR or ~/.kube/cache that
// holds the sockets, logs of the caches.
const dirName = "kubectl-informer"

// Dir returns the directory of the current user's cache sockets:
// $XDG_RUNTIME_DIR/kubectl-informer, or ~/.kube/cache/kubectl-informer when
// XDG_RUNTIME_DIR is unset. It does not create or check it.
func Dir() (string, error) {
	if runtime := os.Getenv("XDG_RUNTIME_DIR"); runtime != "" {
		return filepath.Join(runtime, dirName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache socket directory: %w", err)
	}
	return filepath.Join(home, ".kube", "cache", dirName), nil
}

// SocketPath is the socket of the cache of the identity key in dir.
func SocketPath(dir, key string) string { return filepath.Join(dir, key+".sock") }

// LogPath is the log file of the cache of the identity key in dir.
func LogPath(dir, key string) string { return filepath.Join(dir, key+".log") }

// Sockets returns the socket paths in dir, sorted; none if dir does not
// exist.
func Sockets(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	var paths []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sock") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	return paths, nil
}

// EnsureDir creates dir (and its parents) if it is missing, with mode 0700,
// and then checks it as CheckDir does.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the cache directory: %w", err)
	}
	return CheckDir(dir)
}

// ErrUnsafeDir is wrapped by the errors of CheckDir.
var ErrUnsafeDir = errors.New("unsafe cache directory")

// CheckDir checks that dir is a directory, not a symbolic link, owned by
// the current user, that no one else may enter or list (no group or other
// permission bits): the guard that keeps other users away from the sockets
// before the server's own peer check.
func CheckDir(dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafeDir, dir)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: %s has mode %04o, want 0700 (others could reach the sockets)", ErrUnsafeDir, dir, perm)
	}
	owner, ok := fileOwner(info)
	if ok && owner != os.Getuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not by you (uid %d)", ErrUnsafeDir, dir, owner, os.Getuid())
	}
	return nil
}
