package version

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// BuildID identifies the running executable's build, so that two different
// binaries can tell each other apart even when Version is the same (every
// unstamped build of a checkout is v0.0.0-dev): the Go build ID the linker
// writes into the executable (a hash of the build's inputs, the one
// `go tool buildid` prints), read once. Without one (a binary linked with
// -buildid=), it is the VCS revision and the executable's size and
// modification time. It is "" only when the executable cannot be read.
var BuildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if id, err := goBuildID(exe); err == nil && id != "" {
		return id
	}
	info, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s size %d modified %d", vcsRevision(), info.Size(), info.ModTime().UnixNano())
})

// goBuildID reads the Go build ID of the executable at path: from the ELF
// note .note.go.buildid, or, in other formats (Mach-O), from the
// `\xff Go build ID: "…"` string the linker puts in the first 32 KiB.
func goBuildID(path string) (string, error) {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		s := f.Section(".note.go.buildid")
		if s == nil {
			return "", fmt.Errorf("%s has no Go build ID note", path)
		}
		note, err := s.Data()
		if err != nil {
			return "", err
		}
		// namesz, descsz, type (4 bytes each), name "Go\0\0", desc.
		if len(note) < 16 || !bytes.Equal(note[12:16], []byte("Go\x00\x00")) {
			return "", fmt.Errorf("%s: malformed Go build ID note", path)
		}
		descsz := int(f.ByteOrder.Uint32(note[4:8]))
		if len(note) < 16+descsz {
			return "", fmt.Errorf("%s: truncated Go build ID note", path)
		}
		return string(note[16 : 16+descsz]), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 32<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return "", err
	}
	head = head[:n]
	prefix := []byte("\xff Go build ID: \"")
	i := bytes.Index(head, prefix)
	if i < 0 {
		return "", fmt.Errorf("%s has no Go build ID", path)
	}
	rest := head[i+len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return "", fmt.Errorf("%s: truncated Go build ID", path)
	}
	return string(rest[:end]), nil
}

// vcsRevision returns the VCS revision the binary was built from, with
// "+modified" for a dirty tree, or "" when the build info has none.
func vcsRevision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	return rev + modified
}
