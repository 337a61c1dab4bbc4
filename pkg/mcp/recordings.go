package mcp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// CheckRecordings checks the recordings a server is started with: each
// must be a recording (kubectl informer record --to FILE), and no two may
// share a base name, by which a tool's recording argument may name them.
// Its errors name the --recording flag and the file.
func CheckRecordings(paths []string) error {
	names := map[string]string{}
	for _, path := range paths {
		ok, err := recording.IsRecordingPath(path)
		if err != nil {
			return fmt.Errorf("--recording %s: %w", path, err)
		}
		if !ok {
			return fmt.Errorf("--recording %s: not a recording (kubectl informer record --to FILE makes one)", path)
		}
		base := filepath.Base(path)
		if other, dup := names[base]; dup {
			return fmt.Errorf("--recording %s and %s have the same name %s: give recordings distinct file names", other, path, base)
		}
		names[base] = path
	}
	return nil
}

// recordingOf returns the path of the recording a tool's recording
// argument names: a path the server was started with or its base name;
// empty names the server's only recording.
func (s *Server) recordingOf(name string) (string, error) {
	paths := s.opts.Recordings
	if name == "" {
		if len(paths) == 1 {
			return paths[0], nil
		}
		return "", fmt.Errorf("recording is required: this server has %d recordings (%s)", len(paths), strings.Join(s.recordingNames(), ", "))
	}
	for _, path := range paths {
		if name == path || name == filepath.Base(path) {
			return path, nil
		}
	}
	return "", fmt.Errorf("recording %q is not one of this server's recordings (%s)", name, strings.Join(s.recordingNames(), ", "))
}

// recordingNames are the base names of the server's recordings.
func (s *Server) recordingNames() []string {
	names := make([]string, len(s.opts.Recordings))
	for i, path := range s.opts.Recordings {
		names[i] = filepath.Base(path)
	}
	return names
}
