package recording

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
)

// IsRecording reports whether the file at path starts as a recording
// does: a gzip stream whose first record names the recording format. It
// reads at most a few kilobytes; it does not check the rest of the file.
func IsRecording(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	magic := make([]byte, 2)
	if _, err := io.ReadFull(f, magic); err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return false, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		return false, nil
	}
	start := make([]byte, 64)
	n, _ := io.ReadFull(gz, start)
	return bytes.HasPrefix(start[:n], []byte(`{"format":"`+Format+`"`)), nil
}
