package engines

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dumpPod is a pod whose newest time is its creationTimestamp.
const dumpPod = `apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: shop
  creationTimestamp: "2021-08-03T09:00:00Z"
spec:
  containers:
  - name: web
    image: web:1.0
`

// writeDump writes a dump of one pod into a new directory, with a
// must-gather's timestamp file when stamp is set, and returns the
// directory.
func writeDump(t *testing.T, stamp string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pods.yaml"), []byte(dumpPod), 0o644); err != nil {
		t.Fatal(err)
	}
	if stamp != "" {
		if err := os.WriteFile(filepath.Join(dir, "timestamp"), []byte(stamp), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAges(t *testing.T) {
	stamped := writeDump(t, "2021-08-03 10:12:00.016988581 +0000 UTC m=+0.380233555\n2021-08-03 10:14:13.52 +0000 UTC m=+133.1\n")
	unstamped := writeDump(t, "")
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	taken := time.Date(2021, 8, 3, 10, 14, 13, 520000000, time.UTC)
	created := time.Date(2021, 8, 3, 9, 0, 0, 0, time.UTC)
	recStart := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	recEnd := recStart.Add(time.Hour)
	recording := func(at, flag string) *recordingEngines {
		r := &recordingEngines{flags: &recordingFlags{at: flag}, end: recEnd}
		r.at, _ = time.Parse(time.RFC3339, at)
		return r
	}
	tests := []struct {
		name    string
		engines engineSource
		from    string // the dump's directory, for fromEngines
		now     string
		want    time.Time // zero: the current time
		line    string    // what stderr says; "" for nothing
		wantErr string
	}{
		{name: "an API server: now", engines: DirectEngines{}},
		{name: "a must-gather: its timestamp file", engines: fromEngines{}, from: stamped,
			want: taken, line: "ages as of 2021-08-03T10:14:13Z, when the dump was taken\n"},
		{name: "a dump without a timestamp file: its newest time", engines: fromEngines{}, from: unstamped,
			want: created, line: "ages as of 2021-08-03T09:00:00Z, when the dump was taken (the newest creationTimestamp in " + filepath.Join(unstamped, "pods.yaml") + ")\n"},
		{name: "a dump without a time: now", engines: fromEngines{}, from: empty},
		{name: "--now a time over a dump", engines: fromEngines{}, from: stamped, now: "2021-08-04T00:00:00+02:00",
			want: time.Date(2021, 8, 3, 22, 0, 0, 0, time.UTC), line: "ages as of 2021-08-03T22:00:00Z, --now\n"},
		{name: "--now a time over a dump without a time", engines: fromEngines{}, from: empty, now: "2021-08-03T22:00:00Z",
			want: time.Date(2021, 8, 3, 22, 0, 0, 0, time.UTC), line: "ages as of 2021-08-03T22:00:00Z, --now\n"},
		{name: "--now a duration before the dump's time", engines: fromEngines{}, from: stamped, now: "-1h",
			want: taken.Add(-time.Hour), line: "ages as of 2021-08-03T09:14:13Z, --now\n"},
		{name: "--now a duration over a dump without a time", engines: fromEngines{}, from: empty, now: "-1h",
			wantErr: "--now -1h counts back from when the dump was taken, but the files hold no time"},
		{name: "a recording at its end", engines: recording("2026-11-26T02:00:00Z", ""),
			want: recEnd, line: "ages as of 2026-11-26T02:00:00Z, the end of the recording\n"},
		{name: "a recording --at", engines: recording("2026-11-26T01:30:00Z", "-30m"),
			want: recStart.Add(30 * time.Minute), line: "ages as of 2026-11-26T01:30:00Z, the --at instant\n"},
		{name: "a recording --at, --now a duration before its end", engines: recording("2026-11-26T01:30:00Z", "-30m"), now: "-10m",
			want: recEnd.Add(-10 * time.Minute), line: "ages as of 2026-11-26T01:50:00Z, --now\n"},
		{name: "a replay: now", engines: &recordingEngines{flags: &recordingFlags{watch: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &EngineOptions{Engines: tt.engines, now: tt.now}
			if tt.from != "" {
				source, err := LoadFrom([]string{tt.from})
				if err != nil {
					t.Fatal(err)
				}
				o.Source = source
			}
			var errOut bytes.Buffer
			ages, err := o.Ages(&errOut)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Ages() = %v, %v, want an error containing %q", ages.Now(), err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Ages() = %v", err)
			}
			if errOut.String() != tt.line {
				t.Errorf("Ages() says %q, want %q", errOut.String(), tt.line)
			}
			if tt.want.IsZero() {
				if got := ages.Now(); time.Since(got) > time.Minute || time.Since(got) < 0 {
					t.Errorf("Ages().Now() = %v, want the current time", got)
				}
				return
			}
			if got := ages.Now(); !got.Equal(tt.want) {
				t.Errorf("Ages().Now() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestValidateNow(t *testing.T) {
	tests := []struct {
		name    string
		engines engineSource
		now     string
		wantErr string // "" for none
	}{
		{name: "unset", engines: DirectEngines{}},
		{name: "a time with --from", engines: fromEngines{}, now: "2021-08-03T10:14:13Z"},
		{name: "a duration with --from a recording", engines: &recordingEngines{}, now: "-10m"},
		{name: "without --from", engines: DirectEngines{}, now: "2021-08-03T10:14:13Z",
			wantErr: "--now needs --from: the ages of a live API server's objects count from the current time"},
		{name: "no zone", engines: fromEngines{}, now: "2021-08-03T10:14:13",
			wantErr: `--now "2021-08-03T10:14:13" is not an RFC 3339 time such as 2026-11-26T01:40:00Z (a zone, Z or +01:00, is required)`},
		{name: "a word", engines: fromEngines{}, now: "yesterday",
			wantErr: `--now "yesterday": want an RFC 3339 time such as 2026-11-26T01:40:00Z, or a negative duration before the dump's time or the recording's end such as -10m`},
		{name: "a positive duration", engines: fromEngines{}, now: "10m",
			wantErr: `--now "10m": a duration must be negative, a time before the dump's time or the recording's end, such as -10m`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &EngineOptions{Engines: tt.engines, now: tt.now}
			err := o.validateNow()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("validateNow() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("validateNow() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
