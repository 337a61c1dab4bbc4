package plugin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
)

// fleetAnswer is one context's answer to a fleet query: its printer (its
// print config, with the relationship indexes bound to its own caches) and
// its objects per type, read at sync. shutdown stops its informers once the
// merged answer is printed.
type fleetAnswer struct {
	name     string
	p        queryPrinter
	groups   []typeObjects
	stderr   *lockedWriter // over a *bytes.Buffer
	shutdown func()
}

// flushStderr writes what the context's query wrote on stderr (warnings
// about unreadable relations, expression errors), each line prefixed with
// the context's name.
func (a *fleetAnswer) flushStderr(w io.Writer) {
	a.stderr.mu.Lock()
	text := a.stderr.w.(*bytes.Buffer).String()
	a.stderr.w.(*bytes.Buffer).Reset()
	a.stderr.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if line != "" {
			fmt.Fprintf(w, "context %s: %s\n", a.name, line)
		}
	}
}

// collect does what Run does up to printing, for one context of a fleet
// query: resolve the types, start and sync the engine and the relations,
// and look the answer up. It records in a what the merged print reads and
// how to stop the informers, which stay up until then.
func (o *QueryOptions) collect(ctx context.Context, a *fleetAnswer) error {
	l, err := o.lookUpAnswer(ctx)
	if err != nil {
		return err
	}
	a.shutdown = l.shutdown
	l.report()
	a.groups = l.groups
	a.p = queryPrinter{cfg: l.cfg, out: o.Out, errOut: o.ErrOut, source: o.source}
	return nil
}
