package watch

import (
	"context"
	"fmt"
	"io"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
)

// followUsage keeps the feed's usage measures (--sum usage.cpu) on the
// target's latest metrics API sample until ctx ends: poller reads the API
// at its resolution, and each new sample re-measures every object of types,
// the groups it changed printed or redrawn as an event's are. A failed
// reading is said once per error on errOut; the sums keep the last sample.
// It returns once poller's Run has.
func (f *groupFeed) followUsage(ctx context.Context, poller *usage.Poller, types []*engine.Type, errOut io.Writer) error {
	var err error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	usage.Follow(ctx, poller, func(s *usage.Snapshot) {
		if err == nil {
			if err = f.remeasure(s, types); err != nil {
				cancel()
			}
		}
	}, func(readErr error) {
		fmt.Fprintf(errOut, "warning: reading usage: %v; the usage sums stay as they were\n", readErr)
	})
	return err
}

// bind binds the feed's usage measures to s (nil when the metrics API
// could not be read); the table of one target takes them too, so that its
// usage cells are blank while s is nil. The table's mu is held.
func (f *groupFeed) bind(s *usage.Snapshot) error {
	f.measures = aggregate.BindUsage(f.table.measures, s)
	if len(f.table.contexts) == 1 {
		return f.table.live.Rebind(f.measures)
	}
	return nil
}

// remeasure binds the feed's usage measures to s and sets every object of
// types again, printing the groups that changed.
func (f *groupFeed) remeasure(s *usage.Snapshot, types []*engine.Type) error {
	table := f.table
	table.mu.Lock()
	defer table.mu.Unlock()
	if err := f.bind(s); err != nil {
		return err
	}
	changes, err := f.setAll(types)
	if err != nil {
		return err
	}
	table.changed(netChanges(changes))
	if !table.tty {
		return QuietPipe(table.out.Flush())
	}
	return nil
}
