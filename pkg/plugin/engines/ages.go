package engines

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/manifest"
)

// This file says against which instant a command's relative times are
// computed: the time a --from dump was taken, the --at instant of a
// recording, --now, or the current time.

// nowFlag is the flag that sets the instant ages count from.
const nowFlag = "--now"

// Ages is the instant against which a command's relative times are
// computed: AGE, LAST SEEN and the other ages of kubectl's tables, the
// ages in a tree's status. The zero Ages counts from the current time,
// read at each call of Now.
type Ages struct {
	at time.Time
}

// AgesAt returns the Ages that count from at, from the current time when
// at is zero.
func AgesAt(at time.Time) Ages { return Ages{at: at} }

// Now returns the instant ages count from.
func (a Ages) Now() time.Time {
	if a.at.IsZero() {
		return time.Now()
	}
	return a.at
}

// AddNowFlag adds --now to cmd, a command that takes --from and prints
// relative times.
func (o *EngineOptions) AddNowFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.now, "now", "", "With --from: count AGE and the other relative times from this instant, an RFC 3339 time (2021-08-03T10:14:13Z) or a negative duration before the dump's time or the recording's end (-10m). By default they count from when the dump was taken (a must-gather's timestamp file, else the newest time its objects hold) or from a recording's --at instant.")
}

// validateNow checks --now without I/O: a time or a negative duration,
// and only with --from.
func (o *EngineOptions) validateNow() error {
	if o.now == "" {
		return nil
	}
	if _, err := parseInstant(nowFlag, o.now); err != nil {
		return err
	}
	switch o.Engines.(type) {
	case fromEngines, *recordingEngines:
		return nil
	}
	return fmt.Errorf("%s needs --from: the ages of a live API server's objects count from the current time", nowFlag)
}

// Ages returns the instant the connected target's relative times count
// from: --now when given; for a recording, its --at instant (its end
// without --at); for a --from dump, when it was taken (a must-gather's
// timestamp file, else the newest time its objects hold, which may take a
// scan of every file) when its files hold a time and can be read; the
// current time otherwise. When the instant is not the current time it
// says so once on errOut ("ages as of 2021-08-03T10:14:13Z, when the dump
// was taken"). It is called after Connect, once per target, by a command
// about to print relative times; a --now duration that has nothing to
// count back from is an error naming the flag.
func (o *EngineOptions) Ages(errOut io.Writer) (Ages, error) {
	at, why, err := o.agesAt()
	if err != nil || at.IsZero() {
		return Ages{}, err
	}
	fmt.Fprintf(errOut, "ages as of %s, %s\n", at.UTC().Format(time.RFC3339), why)
	return Ages{at: at}, nil
}

// agesAt returns the instant of Ages and why it is that one; the zero time
// for the current one.
func (o *EngineOptions) agesAt() (time.Time, string, error) {
	var now instant
	if o.now != "" {
		var err error
		if now, err = parseInstant(nowFlag, o.now); err != nil {
			return time.Time{}, "", err
		}
		if !now.at.IsZero() {
			return now.at, nowFlag, nil
		}
	}
	switch e := o.Engines.(type) {
	case WarmEngines:
		if !e.Env.At.IsZero() {
			return e.Env.At, "the instant asked", nil
		}
	case *recordingEngines:
		if e.at.IsZero() {
			return time.Time{}, "", nil // a replay: watch prints no ages
		}
		if o.now != "" {
			return e.end.Add(-now.beforeEnd), nowFlag, nil
		}
		if e.flags.at == "" {
			return e.at, "the end of the recording", nil
		}
		return e.at, "the --at instant", nil
	case fromEngines:
		taken := dumpTime(o.Source)
		if o.now != "" {
			if taken.Time.IsZero() {
				return time.Time{}, "", fmt.Errorf("%s %s counts back from when the dump was taken, but %v; give an RFC 3339 time such as 2021-08-03T10:14:13Z", nowFlag, o.now, manifest.ErrNoDumpTime)
			}
			return taken.Time.Add(-now.beforeEnd), nowFlag, nil
		}
		if taken.Time.IsZero() {
			return time.Time{}, "", nil
		}
		if taken.Stamped {
			return taken.Time, "when the dump was taken", nil
		}
		return taken.Time, fmt.Sprintf("when the dump was taken (the newest %s)", taken.From), nil
	}
	return time.Time{}, "", nil
}

// dumpTime returns when the dump source reads was taken; the zero
// DumpTime when its files hold no time, or when a file cannot be read to
// learn it: that file's error is the read's to report, if the question
// needs the file.
func dumpTime(source interface{}) manifest.DumpTime {
	timed, ok := source.(interface {
		Time() (manifest.DumpTime, error)
	})
	if !ok {
		return manifest.DumpTime{}
	}
	t, err := timed.Time()
	if err != nil {
		if !errors.Is(err, manifest.ErrNoDumpTime) {
			klog.V(1).InfoS("ages count from now: the dump's time is unknown", "err", err)
		}
		return manifest.DumpTime{}
	}
	return t
}
