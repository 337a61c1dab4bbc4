package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// warmResult is the warm step: queries through a warm cache (issue 18) next
// to the same queries without one, and the cache process's memory.
type warmResult struct {
	pods    int
	results map[string]*result
	// rssEmpty is the cache process's RSS right after it started, rssFull
	// after the measured queries, objects what it then held.
	rssEmpty, rssFull int64
	objects           int
	load              float64
}

// warmQ1Cases are query 1 without a cache and through one, directly and
// through kubectl, and the start-up rows that split a warm query's time
// (env carries the cache's $XDG_RUNTIME_DIR; the cold row has none, so it
// finds no cache). The warm and scale steps both measure them.
func (b *bench) warmQ1Cases(d dataSet, env []string) []benchCase {
	q1 := q1Args(d)
	cold := b.direct("w-q1-cold-direct", "kubectl-informer "+shellJoin(q1)+" --cache off (binary run directly)", append(q1, "--cache", "off")...)
	warmDirect := b.direct("w-q1-warm-direct", "kubectl-informer "+shellJoin(q1)+" (binary run directly, warm cache)", q1...)
	warm := b.kubectl("w-q1-warm", "kubectl informer "+shellJoin(q1)+" (warm cache)", append([]string{"informer"}, q1...)...)
	pv := b.direct("w-plugin-version", "kubectl-informer version (process start, no query)", "version")
	kv := b.kubectl("w-kubectl-plugin-version", "kubectl informer version (kubectl's exec of the plugin, no query)", "informer", "version")
	warmDirect.env, warm.env = env, env
	cold.check, warmDirect.check, warm.check = expectLines(d.byImage), expectLines(d.byImage), expectLines(d.byImage)
	return []benchCase{cold, warmDirect, warm, pv, kv}
}

// warmCases are warmQ1Cases and query 3 without a cache and through one.
func (b *bench) warmCases(d dataSet, env []string) []benchCase {
	q3cold := b.kubectl("w-q3-cold", "kubectl informer "+shellJoin(q3Args)+" --cache off", append(append([]string{"informer"}, q3Args...), "--cache", "off")...)
	q3warm := b.kubectl("w-q3-warm", "kubectl informer "+shellJoin(q3Args)+" (warm cache)", append([]string{"informer"}, q3Args...)...)
	q3warm.env = env
	q3cold.check, q3warm.check = expectLines(1+d.nodes), expectLines(1+d.nodes)
	q1 := b.warmQ1Cases(d, env)
	// The order of the step as it was: query 1's rows, query 3's, start-up.
	return append(append(q1[:3:3], q3cold, q3warm), q1[3:]...)
}

// warm is the warm step: warmCases over the seeded pods.
func (b *bench) warm(ctx context.Context) error {
	w, err := b.measureWarm(ctx, "warm-xdg", func(env []string) []benchCase { return b.warmCases(b.seeded(), env) })
	if err != nil {
		return err
	}
	b.rep.warm = w
	return nil
}

// startWarmCache starts a warm cache (no idle timeout) whose
// $XDG_RUNTIME_DIR is the work directory's dir, and returns the environment
// that reaches it and a func that stops it.
func (b *bench) startWarmCache(ctx context.Context, dir string) (env []string, stop func(), err error) {
	xdg := filepath.Join(b.workDir, dir)
	if err := os.MkdirAll(xdg, 0o700); err != nil {
		return nil, nil, err
	}
	env = []string{"XDG_RUNTIME_DIR=" + xdg}
	if _, err := b.pluginCmd(ctx, env, "cache", "start", "--idle-timeout", "0"); err != nil {
		return nil, nil, err
	}
	return env, func() {
		if _, err := b.pluginCmd(context.WithoutCancel(ctx), env, "cache", "stop", "--all"); err != nil {
			b.logf("stopping the warm cache: %v", err)
		}
	}, nil
}

// measureWarm starts a warm cache with $XDG_RUNTIME_DIR in the work
// directory's dir, measures the cases cases builds for it (the unmeasured
// warm-up run of each fills the cache), reads the cache's memory before and
// after, and stops the cache, whatever happened.
func (b *bench) measureWarm(ctx context.Context, dir string, cases func(env []string) []benchCase) (*warmResult, error) {
	env, stop, err := b.startWarmCache(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer stop()
	w := &warmResult{pods: b.pods, load: loadavg1()}
	if w.rssEmpty, _, err = b.cacheMemory(ctx, env); err != nil {
		return nil, err
	}
	if w.results, err = b.measureCases(ctx, cases(env)); err != nil {
		return nil, err
	}
	if w.rssFull, w.objects, err = b.cacheMemory(ctx, env); err != nil {
		return nil, err
	}
	return w, nil
}

// pluginCmd runs the plugin with the bench's environment and env.
func (b *bench) pluginCmd(ctx context.Context, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, b.plugin, args...)
	cmd.Env = append(b.cmdEnv(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("kubectl-informer %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// cacheStatusJSON is what the bench reads of the one running cache's
// status (cache status -o json).
type cacheStatusJSON struct {
	Pid      int   `json:"pid"`
	Active   int   `json:"active"`
	RSSBytes int64 `json:"rssBytes"`
	Answered int64 `json:"answered"`
	Declined int64 `json:"declined"`
	Caches   []struct {
		Type    string   `json:"type"`
		Objects int      `json:"objects"`
		Indexes []string `json:"indexes"`
	} `json:"caches"`
	Usage []struct {
		Pods     bool  `json:"pods"`
		Readings int64 `json:"readings"`
	} `json:"usage"`
}

// objects is how many objects the cache's informers hold.
func (s cacheStatusJSON) objects() int {
	n := 0
	for _, c := range s.Caches {
		n += c.Objects
	}
	return n
}

// cacheStatus reads the status of the one cache running with env.
func (b *bench) cacheStatus(ctx context.Context, env []string) (cacheStatusJSON, error) {
	out, err := b.pluginCmd(ctx, env, "cache", "status", "-o", "json")
	if err != nil {
		return cacheStatusJSON{}, err
	}
	var st []struct {
		Status *cacheStatusJSON `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return cacheStatusJSON{}, fmt.Errorf("decoding cache status: %w", err)
	}
	if len(st) != 1 || st[0].Status == nil {
		return cacheStatusJSON{}, fmt.Errorf("cache status lists %d caches, want one answering:\n%s", len(st), out)
	}
	return *st[0].Status, nil
}

// cacheMemory returns the one running cache's RSS and how many objects it
// holds.
func (b *bench) cacheMemory(ctx context.Context, env []string) (rss int64, objects int, err error) {
	st, err := b.cacheStatus(ctx, env)
	return st.RSSBytes, st.objects(), err
}

// warmQ1Rows are the rows of warmQ1Cases, in the warm section and, at each
// pod count, in the scale section.
var warmQ1Rows = []queryRow{
	{label: "query 1, cold", id: "w-q1-cold-direct"},
	{label: "query 1, warm", id: "w-q1-warm-direct", baselines: []string{"w-q1-cold-direct", "w-plugin-version"}},
	{label: "query 1, warm, through kubectl", id: "w-q1-warm", baselines: []string{"w-q1-warm-direct", "w-kubectl-plugin-version"}},
}

// warmStartRows are the start-up rows of warmQ1Cases.
var warmStartRows = []queryRow{
	{label: "plugin start alone", id: "w-plugin-version"},
	{label: "kubectl's exec of the plugin alone", id: "w-kubectl-plugin-version"},
}

// warmSection is the report's "Warm cache" section.
func (r *report) warmSection() string {
	w := r.warm
	if w == nil {
		return ""
	}
	var s strings.Builder
	fmt.Fprintf(&s, "## Warm cache (%d pods, median of %d runs)\n\n", w.pods, r.runs)
	s.WriteString("`kubectl informer cache start` (issue 18), then the same queries without the cache (`--cache off`) and through it, interleaved as above; the unmeasured warm-up run of each fills the cache. The cache process lists each type once and keeps it; a warm query is the plugin's start, the identity check, one round trip over the unix socket and the lookup in the cache process.\n\n")
	rows := append(append(append([]queryRow(nil), warmQ1Rows...),
		queryRow{label: "query 3, cold, through kubectl", id: "w-q3-cold"},
		queryRow{label: "query 3, warm, through kubectl", id: "w-q3-warm", baselines: []string{"w-q3-cold"}},
	), warmStartRows...)
	s.WriteString("| row | command | wall s (min–max) | CPU s | peak RSS MiB | RssAnon / RssFile MiB | ratios to baselines (wall; RSS) | load |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, row := range rows {
		res := w.results[row.id]
		if res == nil {
			continue
		}
		fmt.Fprintf(&s, "| %s | %s |%s\n", row.label, res.c.title, r.resultCells(w.results, row))
	}
	s.WriteString("\n")
	for _, row := range rows {
		if res := w.results[row.id]; res != nil && res.warn != "" {
			fmt.Fprintf(&s, "- ⚠ %s: %s\n", row.id, res.warn)
		}
	}
	if note := w.memoryNote("the pods once for query 1's index and query 3's group"); note != "" {
		fmt.Fprintf(&s, "%s Load %.2f when the step began.\n\n", note, w.load)
	}
	return s.String()
}

// memoryNote is the sentence on the cache process's memory; held says what
// it held. It is "" if the cache held nothing, and says so when it held
// fewer objects than there were pods: its warm rows were then not all warm.
func (w *warmResult) memoryNote(held string) string {
	if w.objects == 0 {
		return ""
	}
	note := fmt.Sprintf("The cache process: %.1f MiB RSS started, %.1f MiB holding %d objects (%s, whole objects without managedFields): %.1f KiB RSS per cached object.",
		float64(w.rssEmpty)/(1<<20), float64(w.rssFull)/(1<<20), w.objects, held, float64(w.rssFull-w.rssEmpty)/1024/float64(w.objects))
	if w.objects < w.pods {
		note += fmt.Sprintf(" ⚠ It held fewer objects than the %d pods: some warm runs did not use it.", w.pods)
	}
	return note
}
