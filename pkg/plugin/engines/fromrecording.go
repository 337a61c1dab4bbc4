package engines

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/offline"
	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// This file reads a recording with --from: query, tree and capacity answer
// as at --at (by default the recording's end); watch replays the recorded
// events between --since and --until-time.

// recordingFlags are the flags that choose the time of a recording: --at
// on query, tree and capacity; --since, --until-time and --speed on watch.
type recordingFlags struct {
	watch     bool
	at        string
	since     string
	untilTime string
	speed     float64
}

// addRecordingFlags adds the flags of time over a recording to cmd: watch's
// when watch is set, --at otherwise.
func addRecordingFlags(cmd *cobra.Command, watch bool) *recordingFlags {
	r := &recordingFlags{watch: watch}
	f := cmd.Flags()
	if watch {
		f.StringVar(&r.since, "since", "", "With --from a recording: replay from the state at this instant (RFC 3339, or a negative duration before the recording's end such as -10m); by default from the recording's start.")
		f.StringVar(&r.untilTime, "until-time", "", "With --from a recording: end the replay with the last event recorded at or before this instant (RFC 3339, or a negative duration before the end); by default at the recording's end.")
		f.Float64Var(&r.speed, "speed", 0, "With --from a recording: replay at this many times the pace the events were recorded at (1: real time); 0, the default, replays every event at once, in order.")
		return r
	}
	f.StringVar(&r.at, "at", "", "With --from a recording: answer as the cluster was at this instant, an RFC 3339 time (2026-11-26T01:40:00Z) or a negative duration before the recording's end (-10m); by default, as at its end.")
	return r
}

// set reports whether any of the flags was given.
func (r *recordingFlags) set() bool {
	return r.at != "" || r.since != "" || r.untilTime != "" || r.speed != 0
}

// named returns the first flag given, for messages.
func (r *recordingFlags) named() string {
	switch {
	case r.at != "":
		return "--at"
	case r.since != "":
		return "--since"
	case r.untilTime != "":
		return "--until-time"
	}
	return "--speed"
}

// validate checks the flags without I/O. isRecording says whether --from
// names a recording; from is --from.
func (r *recordingFlags) validate(from []string, isRecording bool) error {
	if !r.set() {
		return nil
	}
	if len(from) == 0 {
		return fmt.Errorf("%s needs --from a recording (kubectl informer record --to FILE makes one): a live API server answers only as it is now", r.named())
	}
	if !isRecording {
		return fmt.Errorf("%s needs --from a recording, and %s is not one (a dump holds one state; kubectl informer record --to FILE makes a recording)", r.named(), from[0])
	}
	if r.speed < 0 {
		return fmt.Errorf("--speed must not be negative, got %g", r.speed)
	}
	for _, f := range []struct{ flag, value string }{{"--at", r.at}, {"--since", r.since}, {"--until-time", r.untilTime}} {
		if f.value != "" {
			if _, err := parseInstant(f.flag, f.value); err != nil {
				return err
			}
		}
	}
	return nil
}

// recordingPath returns the recording among --from's paths, "" when none
// is one. A recording is read alone: several --from paths of which one is
// a recording are an error, as are two recordings (they are not merged).
func recordingPath(from []string) (string, error) {
	found := ""
	for _, path := range from {
		ok, err := recording.IsRecordingPath(path)
		if err != nil {
			if len(from) == 1 {
				return "", nil // the files' own reader names the problem
			}
			continue
		}
		if ok {
			if found != "" {
				return "", fmt.Errorf("--from %s and %s are both recordings: a command reads one recording (recordings are not merged)", found, path)
			}
			found = path
		}
	}
	if found != "" && len(from) > 1 {
		return "", fmt.Errorf("--from %s is a recording: give it alone (a recording is not merged with dumps or other files)", found)
	}
	return found, nil
}

// recordingEngines starts the command's own engines over a recording:
// over the state at an instant for query, tree and capacity; over a
// replay for watch, whose events it plays once the watch's engine has
// listed the state at the replay's start.
type recordingEngines struct {
	fromEngines
	path  string
	flags *recordingFlags

	// replay, for a watch, is set by connect; at, for the others, is the
	// instant answered, and end the recording's end.
	replay  *offline.Replay
	at, end time.Time
	errOut  io.Writer
}

func (r *recordingEngines) connect(*genericclioptions.ConfigFlags) (engine.Source, string, error) {
	span, err := offline.ReadSpan(r.path)
	if err != nil {
		return nil, "", fmt.Errorf("--from %w", err)
	}
	if span.Truncated && r.errOut != nil {
		fmt.Fprintf(r.errOut, "warning: %s was cut off after its last complete event, at %s; it answers up to there\n", r.path, formatInstant(span.End))
	}
	server := "--from " + r.path
	if !r.flags.watch {
		at := span.End
		if r.flags.at != "" {
			if at, err = ResolveInstant("--at", r.flags.at, span); err != nil {
				return nil, "", err
			}
			if at.After(span.End) && r.errOut != nil {
				fmt.Fprintf(r.errOut, "warning: --at %s is after the last event of %s, at %s: the answer is the state then\n", r.flags.at, r.path, formatInstant(span.End))
			}
		}
		source, err := offline.Recorded(r.path, at)
		if err != nil {
			return nil, "", fmt.Errorf("--from %w", err)
		}
		r.at, r.end = at, span.End
		return source, server, nil
	}
	var window offline.Window
	window.Speed = r.flags.speed
	if r.flags.since != "" {
		if window.Since, err = ResolveInstant("--since", r.flags.since, span); err != nil {
			return nil, "", err
		}
	}
	if r.flags.untilTime != "" {
		if window.Until, err = ResolveInstant("--until-time", r.flags.untilTime, span); err != nil {
			return nil, "", err
		}
		if !window.Since.IsZero() && window.Until.Before(window.Since) {
			return nil, "", fmt.Errorf("--until-time %s is before --since %s", r.flags.untilTime, r.flags.since)
		}
	}
	if r.replay, err = offline.NewReplay(r.path, window); err != nil {
		return nil, "", fmt.Errorf("--from %w", err)
	}
	return r.replay.Source(), server, nil
}

// ResolveInstant parses value, of flag, and resolves it in span: an RFC
// 3339 time, or a negative duration before the recording's end. Its
// errors name flag.
func ResolveInstant(flag, value string, span offline.Span) (time.Time, error) {
	i, err := parseInstant(flag, value)
	if err != nil {
		return time.Time{}, err
	}
	return i.resolve(span.Start, span.End)
}

// replayOf returns the replay engines play, nil when they are not a
// recording's replay.
func replayOf(engines engineSource) *offline.Replay {
	if r, ok := engines.(*recordingEngines); ok {
		return r.replay
	}
	return nil
}

// PlayRecording starts the replay of engines, when they are a recording's
// replay, until ctx ends: the watch calls it once it has read the state at
// the replay's start, just before it prints events. A replay that fails
// ends there (its source finishes), and replayError then returns why.
func PlayRecording(ctx context.Context, engines engineSource) {
	if replay := replayOf(engines); replay != nil {
		go func() { _ = replay.Run(ctx) }()
	}
}

// ReplayError returns the error that ended the replay of engines early
// (known once its source has finished); nil for a replay that played its
// window or has not ended, and for other engines.
func ReplayError(engines engineSource) error {
	if replay := replayOf(engines); replay != nil && replay.Err() != nil {
		return fmt.Errorf("the replay ended early: %w", replay.Err())
	}
	return nil
}

// Replays reports whether engines are a recording's replay.
func Replays(engines engineSource) bool {
	return replayOf(engines) != nil
}

// recordingEnginesFor returns the engine source of --from paths when they
// name a recording, nil when they do not; flags are checked against them.
// errOut gets the warning of a recording cut off.
func recordingEnginesFor(paths []string, flags *recordingFlags, errOut io.Writer) (engineSource, error) {
	path, err := recordingPath(paths)
	if err != nil {
		return nil, err
	}
	if err := flags.validate(paths, path != ""); err != nil {
		return nil, err
	}
	if path == "" {
		return nil, nil
	}
	return &recordingEngines{fromEngines: fromEngines{paths: paths}, path: path, flags: flags, errOut: errOut}, nil
}

// RecordedTimes returns, for a replay, when the state each printed event
// carries was recorded (--timestamps and -o json print it); nil for other
// engines.
func RecordedTimes(engines engineSource) func(*engine.Event) time.Time {
	replay := replayOf(engines)
	if replay == nil {
		return nil
	}
	return func(ev *engine.Event) time.Time {
		a, err := meta.Accessor(ev.Object())
		if err != nil {
			return replay.Since()
		}
		return replay.RecordedAt(ev.Resource.Mapping.GroupVersionKind.GroupKind(), a.GetNamespace(), a.GetName(), a.GetResourceVersion())
	}
}
