package engines

import (
	"strings"
	"testing"
	"time"
)

func TestParseInstant(t *testing.T) {
	start := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	end := start.Add(time.Hour)
	tests := []struct {
		name, value string
		want        time.Time
		wantErr     string // a part of the error of parsing or resolving
	}{
		{name: "RFC 3339", value: "2026-11-26T01:30:00Z", want: start.Add(30 * time.Minute)},
		{name: "RFC 3339 with fractions and a zone", value: "2026-11-26T02:30:00.250+01:00", want: start.Add(30*time.Minute + 250*time.Millisecond)},
		{name: "duration before the end", value: "-10m", want: end.Add(-10 * time.Minute)},
		{name: "the start exactly", value: "-1h", want: start},
		{name: "the end exactly", value: "2026-11-26T02:00:00Z", want: end},
		{name: "before the start", value: "2026-11-26T00:59:59Z", wantErr: "--at 2026-11-26T00:59:59Z: 2026-11-26T00:59:59.000Z is before the recording's start, 2026-11-26T01:00:00.000Z"},
		{name: "a duration reaching before the start", value: "-61m", wantErr: "before the recording's start"},
		{name: "after the last event: the state at the end", value: "2026-11-26T02:00:01Z", want: end.Add(time.Second)},
		{name: "no zone", value: "2026-11-26T01:30:00", wantErr: `--at "2026-11-26T01:30:00" is not an RFC 3339 time`},
		{name: "a word", value: "yesterday", wantErr: `--at "yesterday": want an RFC 3339 time`},
		{name: "a positive duration", value: "10m", wantErr: `--at "10m": a duration must be negative`},
		{name: "zero", value: "0s", wantErr: "must be negative"},
		{name: "minus zero: the end", value: "-0s", want: end},
		{name: "empty", value: "", wantErr: "want an RFC 3339 time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i, err := parseInstant("--at", tt.value)
			var got time.Time
			if err == nil {
				got, err = i.resolve(start, end)
			}
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("--at %q = %v, %v, want an error containing %q", tt.value, got, err, tt.wantErr)
				}
			case err != nil:
				t.Fatalf("--at %q = %v, want %v", tt.value, err, tt.want)
			case !got.Equal(tt.want):
				t.Fatalf("--at %q = %v, want %v", tt.value, got, tt.want)
			}
		})
	}
}
