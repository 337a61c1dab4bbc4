package engines

import (
	"fmt"
	"strings"
	"time"
)

// This file parses the instants of a recording the flags name: --at,
// --since and --until-time; and --now, which also names an instant of a
// dump.

// instant is a moment of a recording as a flag gives it: an RFC 3339 time,
// or a duration before the recording's end. Its time is known only once
// the recording's span is (resolve).
type instant struct {
	flag  string
	value string
	// at is the RFC 3339 time; zero when the value is a duration.
	at time.Time
	// beforeEnd is how long before the recording's end, for a duration.
	beforeEnd time.Duration
}

// parseInstant parses value, the value of flag: an RFC 3339 time
// (2026-11-26T01:40:00Z, fractions of a second allowed) or a negative
// duration (-10m), that long before the recording's end (-0s is the end;
// for --now, before the dump's time or the recording's end). Its errors
// name the flag.
func parseInstant(flag, value string) (instant, error) {
	i := instant{flag: flag, value: value}
	if t, err := time.Parse(time.RFC3339Nano, value); err == nil {
		i.at = t
		return i, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil {
		if strings.ContainsAny(value, "T:") {
			return i, fmt.Errorf("%s %q is not an RFC 3339 time such as 2026-11-26T01:40:00Z (a zone, Z or +01:00, is required)", flag, value)
		}
		return i, fmt.Errorf("%s %q: want an RFC 3339 time such as 2026-11-26T01:40:00Z, or a negative duration before %s such as -10m", flag, value, countsBackFrom(flag))
	}
	if d > 0 || (d == 0 && !strings.HasPrefix(value, "-")) {
		return i, fmt.Errorf("%s %q: a duration must be negative, a time before %s, such as -%s", flag, value, countsBackFrom(flag), strings.TrimPrefix(value, "+"))
	}
	i.beforeEnd = -d
	return i, nil
}

// countsBackFrom names what a negative duration of flag counts back from.
func countsBackFrom(flag string) string {
	if flag == nowFlag {
		return "the dump's time or the recording's end"
	}
	return "the recording's end"
}

// resolve returns the instant's time in a recording whose state is
// complete from start and whose last event is at end, or an error naming
// the flag when it is before start. An instant after end is the state at
// end: a recording does not say when its recorder stopped, only when it
// last saw a change.
func (i instant) resolve(start, end time.Time) (time.Time, error) {
	t := i.at
	if t.IsZero() {
		t = end.Add(-i.beforeEnd)
	}
	if t.Before(start) {
		return time.Time{}, fmt.Errorf("%s %s: %s is before the recording's start, %s", i.flag, i.value, formatInstant(t), formatInstant(start))
	}
	return t, nil
}

// formatInstant prints a time of a recording in messages: RFC 3339 in UTC,
// to the millisecond.
func formatInstant(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
