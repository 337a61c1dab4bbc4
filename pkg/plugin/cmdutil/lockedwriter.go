package cmdutil

import (
	"io"
	"sync"
)

// LockedWriter serialises writes from several goroutines; Mu is held
// during each write.
type LockedWriter struct {
	Mu sync.Mutex
	W  io.Writer
}

func (l *LockedWriter) Write(b []byte) (int, error) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.W.Write(b)
}
