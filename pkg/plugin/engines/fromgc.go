package engines

import (
	"os"
	"runtime/debug"
	"sync"
)

// readingGCPercent is the collector's target while objects are read where
// decoding leaves more garbage than what is kept: --from files (decoded
// from JSON or YAML, about as much garbage as the objects they keep) and
// one-shot queries that keep a small record of each object (the whole
// object decoded, a few hundred bytes kept). Collecting sooner while
// reading keeps the peak near what is kept, for a little more CPU.
const readingGCPercent = 50

var readingGC struct {
	sync.Mutex
	readers int
	before  int
}

// TightenGCWhileReading sets the collector's target to readingGCPercent
// until the function it returns is called, unless GOGC is set (the user's
// choice stands). Concurrent readers share the setting; the last one to
// finish restores the target it replaced.
func TightenGCWhileReading() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	readingGC.Lock()
	defer readingGC.Unlock()
	if readingGC.readers == 0 {
		readingGC.before = debug.SetGCPercent(readingGCPercent)
	}
	readingGC.readers++
	var once sync.Once
	return func() {
		once.Do(func() {
			readingGC.Lock()
			defer readingGC.Unlock()
			readingGC.readers--
			if readingGC.readers == 0 {
				debug.SetGCPercent(readingGC.before)
			}
		})
	}
}
