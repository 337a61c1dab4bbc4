package plugin

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// flushPrefixed writes to w what stderr (a lockedWriter over a
// *bytes.Buffer, a target's stderr kept while it is answered) holds, each
// line prefixed with "context NAME: ", and empties it. A nil stderr holds
// nothing.
func flushPrefixed(w io.Writer, name string, stderr *lockedWriter) {
	if stderr == nil {
		return
	}
	stderr.mu.Lock()
	buf := stderr.w.(*bytes.Buffer)
	text := buf.String()
	buf.Reset()
	stderr.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if line != "" {
			fmt.Fprintf(w, "context %s: %s\n", name, line)
		}
	}
}
