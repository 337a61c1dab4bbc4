package krew

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Entry is one file to put into an archive.
type Entry struct {
	// Name is the file's slash-separated path inside the archive.
	Name string
	// Source is the file on disk whose content is packed.
	Source string
	// Mode holds the permission bits to record, e.g. 0o755.
	Mode fs.FileMode
}

// Pack writes entries into the archive out, a .tar.gz or .tgz (gzipped tar)
// or a .zip, by out's suffix. Every entry is recorded with modification time
// mtime, owner 0:0 and no user or group names, so the same inputs give the
// same bytes and the same checksum on any machine. out is written under a
// temporary name and renamed into place.
func Pack(out string, entries []Entry, mtime time.Time) (err error) {
	var write func(io.Writer, []Entry, time.Time) error
	switch {
	case strings.HasSuffix(out, ".tar.gz"), strings.HasSuffix(out, ".tgz"):
		write = writeTarGz
	case strings.HasSuffix(out, ".zip"):
		write = writeZip
	default:
		return fmt.Errorf("packing %s: want a .tar.gz, .tgz or .zip name", out)
	}
	for _, e := range entries {
		if !isRelative(e.Name) {
			return fmt.Errorf("packing %s: entry name %q must be a clean relative path", out, e.Name)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return fmt.Errorf("packing %s: %w", out, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err := write(bw, entries, mtime.UTC()); err != nil {
		return fmt.Errorf("packing %s: %w", out, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("packing %s: %w", out, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("packing %s: %w", out, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("packing %s: %w", out, err)
	}
	return os.Rename(tmp.Name(), out)
}

func writeTarGz(w io.Writer, entries []Entry, mtime time.Time) error {
	gz := gzip.NewWriter(w) // no name and a zero time in the gzip header
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		data, err := os.ReadFile(e.Source)
		if err != nil {
			return err
		}
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     e.Name,
			Mode:     int64(e.Mode.Perm()),
			Size:     int64(len(data)),
			ModTime:  mtime,
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, entries []Entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		data, err := os.ReadFile(e.Source)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: e.Name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(e.Mode.Perm())
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Extract unpacks the gzipped tar or zip archive file into dir, telling the
// format by the content as krew does, not by the name. Only regular files
// and directories are allowed, and none may land outside dir.
func Extract(file, dir string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	magic := make([]byte, 4)
	if _, err := io.ReadFull(f, magic); err != nil {
		return fmt.Errorf("extracting %s: reading its header: %w", file, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		err = extractTarGz(f, dir)
	case bytes.Equal(magic, []byte("PK\x03\x04")):
		var info fs.FileInfo
		if info, err = f.Stat(); err == nil {
			err = extractZip(f, info.Size(), dir)
		}
	default:
		err = errors.New("not a gzipped tar or zip archive")
	}
	if err != nil {
		return fmt.Errorf("extracting %s: %w", file, err)
	}
	return nil
}

func extractTarGz(r io.Reader, dir string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		dst, err := extractPath(dir, hdr.Name)
		if err != nil {
			return err
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeFile(dst, tr, fs.FileMode(hdr.Mode).Perm()); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: unsupported entry type %q", hdr.Name, hdr.Typeflag)
		}
	}
}

func extractZip(r io.ReaderAt, size int64, dir string) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return err
	}
	for _, zf := range zr.File {
		dst, err := extractPath(dir, zf.Name)
		if err != nil {
			return err
		}
		mode := zf.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case mode.IsRegular():
			rc, err := zf.Open()
			if err != nil {
				return err
			}
			err = writeFile(dst, rc, mode.Perm())
			rc.Close()
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: unsupported entry mode %s", zf.Name, mode)
		}
	}
	return nil
}

// extractPath returns where the archive entry name goes under dir, or an
// error if it would leave dir.
func extractPath(dir, name string) (string, error) {
	clean := path.Clean(strings.TrimSuffix(name, "/"))
	if !isRelative(clean) {
		return "", fmt.Errorf("entry %q would be extracted outside the target directory", name)
	}
	return filepath.Join(dir, filepath.FromSlash(clean)), nil
}

func writeFile(dst string, r io.Reader, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
