package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DumpTime is when a dump was taken, and where that was learnt.
type DumpTime struct {
	// Time is the dump's time, in UTC.
	Time time.Time
	// From says where Time was found: "timestamp file PATH", or "KEY in
	// PATH" for the newest time among the objects' fields.
	From string
	// Stamped says Time is a must-gather's own timestamp file's, not the
	// newest time among the objects.
	Stamped bool
}

// String words t as the line a command prints once.
func (t DumpTime) String() string {
	return fmt.Sprintf("%s (%s)", t.Time.Format(time.RFC3339), t.From)
}

// ErrNoDumpTime says a dump holds no time to take as its own.
var ErrNoDumpTime = errors.New("the files hold no time: no must-gather timestamp file, no creationTimestamp or other time field")

// timeKeys are the object fields whose times say when a dump was at
// least taken: none of them can be later than the moment the objects were
// read from the API server (deletionTimestamp can, and is not among them;
// nor are expiry times kept in annotations).
var timeKeys = map[string]bool{
	"creationTimestamp":  true,
	"lastTransitionTime": true,
	"lastTimestamp":      true,
	"firstTimestamp":     true,
	"eventTime":          true,
	"lastHeartbeatTime":  true,
	"lastProbeTime":      true,
	"lastUpdateTime":     true,
	"lastObservedTime":   true,
	"renewTime":          true,
}

// Time returns when the dump was taken: the newest time in a must-gather's
// timestamp file (its root's, or that of a directory given), else the
// newest time among the objects' creationTimestamp, conditions'
// lastTransitionTime, events' lastTimestamp and eventTime, leases'
// renewTime and like fields, found by a scan of every file that can hold
// objects (read or not; nothing is decoded). ErrNoDumpTime when there is
// none.
func (d *Dump) Time() (DumpTime, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var best DumpTime
	for _, dir := range d.timestampDirs() {
		path := filepath.Join(dir, "timestamp")
		t, ok, err := readTimestampFile(path)
		if err != nil {
			return DumpTime{}, err
		}
		if ok && t.After(best.Time) {
			best = DumpTime{Time: t, From: "timestamp file " + path, Stamped: true}
		}
	}
	if best.Stamped {
		return best, nil
	}
	for _, f := range d.files {
		if f.path == "-" {
			continue
		}
		t, key, err := d.newestTime(f.path)
		if err != nil {
			return DumpTime{}, err
		}
		if t.After(best.Time) {
			best = DumpTime{Time: t, From: key + " in " + f.path}
		}
	}
	if best.Time.IsZero() {
		return DumpTime{}, ErrNoDumpTime
	}
	return best, nil
}

// timestampDirs are the must-gathers' roots and the directories given
// that hold a timestamp file.
func (d *Dump) timestampDirs() []string {
	dirs := append([]string(nil), d.roots...)
	for _, dir := range d.dirs {
		if info, err := os.Stat(filepath.Join(dir, "timestamp")); err == nil && info.Mode().IsRegular() && !contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// readTimestampFile reads a must-gather's timestamp file: lines of Go's
// time.Time String form ("2021-08-03 10:12:00.016988581 +0000 UTC
// m=+0.380233555"), one where each gathering began and ended, or RFC 3339
// times. It returns the newest; ok is false when no line holds a time.
func readTimestampFile(path string) (t time.Time, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return t, false, pathError(path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, " m="); i >= 0 {
			line = line[:i]
		}
		var lt time.Time
		var perr error
		for _, layout := range []string{"2006-01-02 15:04:05.999999999 -0700 MST", time.RFC3339Nano} {
			if lt, perr = time.Parse(layout, line); perr == nil {
				break
			}
		}
		if perr == nil && lt.After(t) {
			t, ok = lt.UTC(), true
		}
	}
	return t, ok, sc.Err()
}

// newestTime scans the file at path for the newest value of a time key.
func (d *Dump) newestTime(path string) (time.Time, string, error) {
	in, err := d.open(path)
	if err != nil {
		return time.Time{}, "", pathError(path, err)
	}
	defer in.Close()
	data, err := io.ReadAll(in)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("%s: %w", path, err)
	}
	t, key := newestTimeIn(data)
	return t, key, nil
}

// newestTimeIn finds, in YAML or JSON bytes, every "KEY: TIME" or
// "KEY":"TIME" whose key is a time key, and returns the newest time and
// its key.
func newestTimeIn(data []byte) (newest time.Time, key string) {
	marker := []byte("Time")
	for i := 0; ; {
		j := bytes.Index(data[i:], marker)
		if j < 0 {
			return newest, key
		}
		at := i + j
		i = at + len(marker)
		// The key: letters before and after the marker.
		start := at
		for start > 0 && isLetter(data[start-1]) {
			start--
		}
		end := i
		for end < len(data) && isLetter(data[end]) {
			end++
		}
		k := string(data[start:end])
		if !timeKeys[k] {
			continue
		}
		v := end
		if v < len(data) && data[v] == '"' {
			v++
		}
		if v >= len(data) || data[v] != ':' {
			continue
		}
		v++
		for v < len(data) && data[v] == ' ' {
			v++
		}
		if v < len(data) && (data[v] == '"' || data[v] == '\'') {
			v++
		}
		stop := v
		for stop < len(data) && stop-v < 40 && data[stop] != '"' && data[stop] != '\'' && data[stop] != '\n' && data[stop] != '\r' && data[stop] != ',' && data[stop] != '}' && data[stop] != ' ' {
			stop++
		}
		t, err := time.Parse(time.RFC3339Nano, string(data[v:stop]))
		if err != nil {
			continue
		}
		if t.After(newest) {
			newest, key = t.UTC(), k
		}
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
