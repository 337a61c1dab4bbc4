package cmdutil

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// LockedWriter serialises writes from several goroutines.
type LockedWriter struct {
	Mu sync.Mutex
	W  io.Writer
}

func (l *LockedWriter) Write(b []byte) (int, error) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.W.Write(b)
}

// FlushPrefixed writes to w what stderr (a lockedWriter over a
// *bytes.Buffer, a target's stderr kept while it is answered) holds, each
// line prefixed with "context NAME: ", and empties it. A nil stderr holds
// nothing.
func FlushPrefixed(w io.Writer, name string, stderr *LockedWriter) {
	if stderr == nil {
		return
	}
	stderr.Mu.Lock()
	buf := stderr.W.(*bytes.Buffer)
	text := buf.String()
	buf.Reset()
	stderr.Mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if line != "" {
			fmt.Fprintf(w, "context %s: %s\n", name, line)
		}
	}
}
