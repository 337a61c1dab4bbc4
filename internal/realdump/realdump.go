// Package realdump unpacks the real must-gather kept in its testdata (an
// OpenShift 4.8 cluster's, from openshift/must-gather-clean, Apache-2.0;
// see testdata/README.md) for the tests and benchmarks that read it.
package realdump

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ulikunitz/xz"
)

// Root is the must-gather's folder inside the archive's top folder.
const Root = "must-gather-aws/quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-eede85cbd33388f7e18954e5ce8ad9616e91df05ace604966c0a44111d85c897"

// Archive returns the path of the archive.
func Archive() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "must-gather-aws.tar.xz")
}

// Unpack unpacks the archive into dir and returns the must-gather's root
// below it (dir/Root).
func Unpack(dir string) (string, error) {
	f, err := os.Open(Archive())
	if err != nil {
		return "", err
	}
	defer f.Close()
	xr, err := xz.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", Archive(), err)
	}
	tr := tar.NewReader(xr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", Archive(), err)
		}
		name := filepath.Clean(h.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("reading %s: %s is outside the archive", Archive(), h.Name)
		}
		path := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return "", err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return "", err
			}
			out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return "", err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return "", err
			}
		}
	}
	return filepath.Join(dir, Root), nil
}
