package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cmdSoakCheck is `benchtool soak-check --dir DIR`: the soak step's
// accounting and table again, from the files a run kept in its work
// directory (BENCH_KEEP=1), for checking a run by hand or a change to the
// accounting against a real run.
func cmdSoakCheck(args []string) error {
	fs := flag.NewFlagSet("soak-check", flag.ContinueOnError)
	dir := fs.String("dir", "", "the work directory of a run of the soak step")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("soak-check needs --dir")
	}
	in, err := readSoakDir(*dir)
	if err != nil {
		return err
	}
	s := &soakResult{clients: len(in.watches), pods: len(in.initial), outages: in.outages, check: checkSoak(in)}
	if len(in.stamps) > 0 {
		s.duration = in.stamps[len(in.stamps)-1].at.Sub(in.stamps[0].at).Round(time.Second)
	}
	r := &report{soak: s}
	fmt.Print(r.soakSection())
	return nil
}

// readSoakDir reads what writeSoakState and writeSoakLog wrote and churn's
// stamps. The end of the run is taken as the latest line of any watch.
func readSoakDir(dir string) (soakInput, error) {
	var in soakInput
	var err error
	if in.stamps, err = readSoakStamps(filepath.Join(dir, "soak-stamps.txt")); err != nil {
		return in, err
	}
	if in.initial, err = readRVList(filepath.Join(dir, "soak-initial.txt")); err != nil {
		return in, err
	}
	if in.final, err = readRVList(filepath.Join(dir, "soak-final.txt")); err != nil {
		return in, err
	}
	err = eachLine(filepath.Join(dir, "soak-outages.txt"), func(f []string, _ string) error {
		if len(f) != 6 {
			return fmt.Errorf("want 6 fields, got %d", len(f))
		}
		o := soakOutage{kill: f[1] == "kill"}
		for i, t := range []*time.Time{&o.stopAt, &o.stopped, &o.startAt, &o.readyAt} {
			if *t, err = unixNanos(f[2+i]); err != nil {
				return err
			}
		}
		in.outages = append(in.outages, o)
		return nil
	})
	if err != nil {
		return in, err
	}
	for n := 1; ; n++ {
		events := filepath.Join(dir, fmt.Sprintf("soak-watch-%d.events", n))
		if _, err := os.Stat(events); errors.Is(err, os.ErrNotExist) && n > 1 {
			break
		}
		var w soakWatchLog
		err := eachLine(events, func(f []string, _ string) error {
			if len(f) != 6 {
				return fmt.Errorf("want 6 fields, got %d", len(f))
			}
			at, err := unixNanos(f[0])
			if err != nil {
				return err
			}
			rv, err1 := strconv.ParseUint(f[3], 10, 64)
			coalesced, err2 := strconv.Atoi(f[4])
			if err := errors.Join(err1, err2); err != nil {
				return err
			}
			w.events = append(w.events, loadEvent{at: at, typ: f[1], key: f[2], rv: rv, coalesced: coalesced, deleting: f[5] == "true"})
			in.end = later(in.end, at)
			return nil
		})
		if err != nil {
			return in, err
		}
		err = eachLine(filepath.Join(dir, fmt.Sprintf("soak-watch-%d.stderr", n)), func(f []string, line string) error {
			at, err := unixNanos(f[0])
			if err != nil {
				return err
			}
			w.stderr = append(w.stderr, timedLine{at: at, text: strings.TrimPrefix(line, f[0]+" ")})
			in.end = later(in.end, at)
			return nil
		})
		if err != nil {
			return in, err
		}
		in.watches = append(in.watches, w)
	}
	in.end = in.end.Add(time.Nanosecond)
	return in, nil
}

// readRVList reads "<ns>/<name> <rv>" lines.
func readRVList(path string) (map[string]uint64, error) {
	out := map[string]uint64{}
	err := eachLine(path, func(f []string, _ string) error {
		if len(f) != 2 {
			return fmt.Errorf("want 2 fields, got %d", len(f))
		}
		rv, err := strconv.ParseUint(f[1], 10, 64)
		out[f[0]] = rv
		return err
	})
	return out, err
}

// eachLine calls fn with the fields and the text of each non-empty line.
func eachLine(path string, fn func(fields []string, line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if err := fn(fields, sc.Text()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}

func unixNanos(s string) (time.Time, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	return time.Unix(0, n), err
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
