package krew

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// InstallDir returns where krew installs version of the plugin name under
// root (krew's KREW_ROOT, ~/.krew by default): <root>/store/<name>/<version>.
func InstallDir(root, name, version string) string {
	return filepath.Join(root, "store", name, version)
}

// Install installs platform pl of plugin p from the local archive file the
// way `kubectl krew install --manifest=… --archive=file` does, without
// linking it: it checks the archive's sha256 against pl.Sha256, unpacks it,
// applies pl.Files into InstallDir(root, …), and checks that pl.Bin is there
// and is an executable file. It returns the path of pl.Bin. Installing over
// an existing installation directory is an error.
func Install(p Plugin, pl Platform, file, root string) (string, error) {
	dir := InstallDir(root, p.Metadata.Name, p.Spec.Version)
	if _, err := os.Lstat(dir); err == nil {
		return "", fmt.Errorf("installing %s %s: %s already exists", p.Metadata.Name, p.Spec.Version, dir)
	}
	bin, err := installTo(pl, file, dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("installing %s %s from %s: %w", p.Metadata.Name, p.Spec.Version, file, err)
	}
	return bin, nil
}

// CheckArchive checks that the archive file is what platform pl describes:
// its sha256 is pl.Sha256, every file operation matches something in it, and
// the files installed include pl.Bin as an executable file. It installs into
// a temporary directory that it removes.
func CheckArchive(pl Platform, file string) error {
	tmp, err := os.MkdirTemp("", "krew-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if _, err := installTo(pl, file, filepath.Join(tmp, "install")); err != nil {
		return fmt.Errorf("checking %s: %w", file, err)
	}
	return nil
}

// LinkBin links the installed executable bin as <root>/bin/kubectl-<name>
// (with dashes in name turned into underscores, and .exe on Windows, as krew
// names it), so that kubectl finds the plugin when <root>/bin is on PATH. It
// returns the link's path. On Windows it copies instead of linking.
func LinkBin(root, name, bin string) (string, error) {
	link := filepath.Join(root, "bin", "kubectl-"+strings.ReplaceAll(name, "-", "_"))
	if runtime.GOOS == "windows" {
		link += ".exe"
	}
	if err := Link(bin, link); err != nil {
		return "", err
	}
	return link, nil
}

// Link makes link a symbolic link to target (a copy on Windows), creating
// link's directory and replacing what was at link.
func Link(target, link string) error {
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	if err := os.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if runtime.GOOS == "windows" {
		return copyFile(target, link)
	}
	return os.Symlink(target, link)
}

// installTo verifies and unpacks file, applies pl.Files into dir, and
// returns the path of pl.Bin after checking it.
func installTo(pl Platform, file, dir string) (string, error) {
	sum, err := SHA256File(file)
	if err != nil {
		return "", err
	}
	if sum != pl.Sha256 {
		return "", fmt.Errorf("sha256 of %s is %s, the manifest says %s", filepath.Base(file), sum, pl.Sha256)
	}
	if !isRelative(pl.Bin) {
		return "", fmt.Errorf("bin %q must be a clean relative path", pl.Bin)
	}
	unpacked, err := os.MkdirTemp("", "krew-unpack-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(unpacked)
	if err := Extract(file, unpacked); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for i, fo := range pl.Files {
		if err := applyFileOperation(unpacked, dir, fo); err != nil {
			return "", fmt.Errorf("files[%d] (from %q to %q): %w", i, fo.From, fo.To, err)
		}
	}
	bin := filepath.Join(dir, filepath.FromSlash(pl.Bin))
	info, err := os.Stat(bin)
	switch {
	case err != nil:
		return "", fmt.Errorf("bin %s is not among the installed files: %w", pl.Bin, err)
	case !info.Mode().IsRegular():
		return "", fmt.Errorf("bin %s is not a regular file but %s", pl.Bin, info.Mode().Type())
	case runtime.GOOS != "windows" && info.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("bin %s is not executable (mode %s)", pl.Bin, info.Mode().Perm())
	}
	return bin, nil
}

// applyFileOperation moves what fo names from the unpacked archive fromDir
// into the installation directory toDir, as krew's installation does: if
// fo.From names an entry of the archive, it moves to fo.To ("." keeps its
// name); otherwise fo.From is a glob and every match moves into directory
// fo.To under its own name.
func applyFileOperation(fromDir, toDir string, fo FileOperation) error {
	if err := checkFileOperation(fo); err != nil {
		return err
	}
	to := fo.To
	if to == "" {
		to = "."
	}
	src := filepath.Join(fromDir, filepath.FromSlash(fo.From))
	if _, err := os.Lstat(src); err == nil {
		dst := to
		if to == "." {
			dst = path.Base(fo.From)
		}
		return moveTree(src, filepath.Join(toDir, filepath.FromSlash(dst)))
	}
	matches, err := filepath.Glob(src)
	if err != nil {
		return err
	}
	if len(matches) == 0 {
		return fmt.Errorf("nothing in the archive matches %q", fo.From)
	}
	for _, m := range matches {
		if err := moveTree(m, filepath.Join(toDir, filepath.FromSlash(to), filepath.Base(m))); err != nil {
			return err
		}
	}
	return nil
}

// moveTree renames src to dst, copying when they are on different file
// systems.
func moveTree(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		return copyFile(p, target)
	})
	if err != nil {
		return err
	}
	return os.RemoveAll(src)
}

// copyFile copies the regular file src to dst with src's permission bits.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
