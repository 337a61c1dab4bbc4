package fleet

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// ovmForm is one way of choosing contexts: the --context value and the
// contexts it selects, in order.
type ovmForm struct {
	name     string
	flag     string
	contexts []string
}

// ovmCase is a command of the comparison and how its output is read.
type ovmCase struct {
	name string
	args []string
	kind ovmKind
}

// ovmCases are the commands TestOneVersusMany runs in every form, directly
// and through warm caches.
var ovmCases = []ovmCase{
	{"query table", []string{"query", "pods,replicasets,deployments", "-n", ovmNamespace}, kindTable},
	{"query -o wide", []string{"query", "pods", "-n", ovmNamespace, "-o", "wide"}, kindTable},
	{"query -o name", []string{"query", "pods,deployments,configmaps", "-n", ovmNamespace, "-o", "name"}, kindLines},
	{"query -o json", []string{"query", "pods,configmaps", "-n", ovmNamespace, "-o", "json"}, kindList},
	{"query -o yaml", []string{"query", "deployments,secrets", "-n", ovmNamespace, "-o", "yaml"}, kindList},
	{"query -o jsonpath", []string{"query", "pods", "-n", ovmNamespace, "-o", `jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}{"\n"}{end}`}, kindConcat},
	{"query -o custom-columns", []string{"query", "pods", "-n", ovmNamespace, "-o", "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,CPU:.spec.containers[0].resources.requests.cpu"}, kindTable},
	{"query --sort-by", []string{"query", "pods", "-n", ovmNamespace, "--sort-by", "{.spec.containers[0].resources.requests.cpu}"}, kindTable},
	{"query --group-by --sum", []string{"query", "pods", "-n", ovmNamespace, "--group-by", "label:app", "--sum", "requests.cpu", "--sum", "requests.memory"}, kindGroups},
	{"query --show-events", []string{"query", "pods", "-n", ovmNamespace, "--show-events"}, kindTable},
	// FlowSchemas are the type whose rows kubectl orders (by matching
	// precedence), not by name.
	{"query kubectl's row order", []string{"query", "flowschemas"}, kindTable},
	{"query nothing found", []string{"query", "pods", "-n", ovmNamespace, "-l", "app=none"}, kindNotFound},
	{"tree down", []string{"tree", "deployment/web", "-n", ovmNamespace}, kindTable},
	{"tree --up", []string{"tree", "pod/web-6d4b-1", "-n", ovmNamespace, "--up"}, kindTable},
	{"tree -o name", []string{"tree", "deployment/web", "-n", ovmNamespace, "-o", "name"}, kindLines},
	{"tree --refs configmap", []string{"tree", "configmap/cfg", "-n", ovmNamespace, "--refs"}, kindTable},
	{"tree --refs pod", []string{"tree", "pod/web-6d4b-1", "-n", ovmNamespace, "--refs"}, kindTable},
	{"tree nothing found", []string{"tree", "deployments", "-l", "app=none", "-n", ovmNamespace}, kindNotFound},
	{"capacity", []string{"capacity"}, kindCapacity},
	{"capacity --group-by", []string{"capacity", "--group-by", "label:topology.kubernetes.io/zone"}, kindGroups},
	{"capacity -o json", []string{"capacity", "-o", "json"}, kindContextItems},
	// One type each: the order of initial events across types is not
	// promised, even in one context.
	{"watch --initial", []string{"watch", "pods", "-n", ovmNamespace, "--initial", "--timeout", "3s"}, kindLines},
	{"watch --initial -o name", []string{"watch", "pods", "-n", ovmNamespace, "--initial", "--timeout", "3s", "-o", "name"}, kindLines},
	{"watch --initial -o json", []string{"watch", "pods", "-n", ovmNamespace, "--initial", "--timeout", "3s", "-o", "json"}, kindEventsJSON},
}

// TestOneVersusMany runs every command on one context (--context fleet-I,
// the reference), on a fleet of one (the pattern fleet-1*, which matches
// fleet-1 only; fleet.Select would also make fleet-1,fleet-1 one context)
// and on a fleet of three (--context fleet-1,fleet-2,fleet-3), and compares
// the answers, the context aside (issue 36: one path for one context and
// many):
//
//   - a fleet's answer is taken apart by context: the CONTEXT column, the
//     CONTEXT/ and "CONTEXT " prefixes of lines, "context CONTEXT: " of
//     messages, the contexts list beside a List's items, the context field
//     of a watch event; the fleet of one may print the context or not;
//   - the fleet of one's answer must be fleet-1's; in the fleet of three's,
//     each context's part must be that context's answer, in the same
//     order, cell for cell, and exit codes must be equal;
//   - what belongs to no context must add up: a grouped table's counts and
//     sums (and its TOTAL) are the sums of the contexts' (compared by group,
//     percentages aside), capacity's TOTAL row the sum of the contexts'
//     TOTAL rows, -o jsonpath the contexts' outputs one after the other;
//   - an empty answer prints nothing on stdout and one context's "No
//     resources found" message on stderr;
//   - ages (AGE, EVENT AGE) may differ by two seconds (plus the precision
//     of the age printed) between two commands run a moment apart; that is
//     the only cell compared loosely.
//
// The commands run directly, then through a warm cache per context (cache
// start), where every form, one context included, must answer as one
// context answers directly; cache start, status and stop are compared the
// same way, and query, query -w and watch must be answered by the warm
// cache of every context a form selects, as one context's are.
func TestOneVersusMany(t *testing.T) {
	seedOneVsMany(t)
	f := framework.CurrentFleet(t)
	if len(f.Contexts) != 3 {
		t.Fatalf("the fleet has contexts %v; want 3", f.Contexts)
	}
	// The caches of the warm forms; the references run with a runtime
	// directory of their own, where no cache ever runs.
	warm, cold := newCacheEnv(t), newCacheEnv(t)
	c1 := f.Contexts[0]
	fleetOfOne := ovmForm{name: "fleet of one", flag: c1 + "*", contexts: []string{c1}}
	fleetOfThree := ovmForm{name: "fleet of three", flag: strings.Join(f.Contexts, ","), contexts: f.Contexts}
	one := ovmForm{name: "one context", flag: c1, contexts: []string{c1}}
	checkFleetOfOne(t, f, fleetOfOne.flag)

	t.Run("direct", func(t *testing.T) {
		for _, c := range ovmCases {
			t.Run(c.name, func(t *testing.T) {
				compareForms(t, f, c, cold, warm, []ovmForm{fleetOfOne, fleetOfThree})
			})
		}
	})
	t.Run("live", func(t *testing.T) {
		testLive(t, f, cold, warm, []ovmForm{fleetOfOne, fleetOfThree})
	})
	t.Run("cache", func(t *testing.T) {
		testCache(t, f, cold, warm, []ovmForm{one, fleetOfOne, fleetOfThree})
	})
}

// checkFleetOfOne checks that pattern selects exactly the first context.
func checkFleetOfOne(t *testing.T, f *framework.Fleet, pattern string) {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: []string{"config", "get-contexts", "-o", "name"}, Kubeconfig: f.Kubeconfig})
	var matched []string
	for _, c := range strings.Fields(r.Stdout) {
		if ok, _ := filepath.Match(pattern, c); ok {
			matched = append(matched, c)
		}
	}
	if !slices.Equal(matched, f.Contexts[:1]) {
		t.Fatalf("--context %q selects %v of the kubeconfig's contexts %q; want %v only", pattern, matched, r.Stdout, f.Contexts[:1])
	}
}

// ovmRun runs `kubectl informer ARGS` with the fleet's kubeconfig and e's
// runtime directory (and so its warm caches).
func ovmRun(t *testing.T, e *cacheEnv, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t, framework.Cmd{
		Args:       append([]string{"informer"}, args...),
		Kubeconfig: framework.CurrentFleet(t).Kubeconfig,
		Env:        e.env(),
		Timeout:    2 * time.Minute,
	})
}

func (e *cacheEnv) env() []string {
	return []string{"XDG_RUNTIME_DIR=" + e.runtime, "KUBECACHEDIR=" + filepath.Join(e.runtime, "kubecache")}
}

// runConcurrently runs each argument list with ovmRun at once and returns
// the results in order.
func runConcurrently(t *testing.T, envs []*cacheEnv, argLists [][]string) []framework.Result {
	t.Helper()
	results := make([]framework.Result, len(argLists))
	var wg sync.WaitGroup
	for i, args := range argLists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = ovmRun(t, envs[i], args...)
		}()
	}
	wg.Wait()
	return results
}

// withContext is args with --context value.
func withContext(args []string, value string) []string {
	return append(slices.Clone(args), "--context", value)
}

// compareForms runs c in each context of the fleet with refEnv (the
// references) and in each form with formEnv, all at once, and compares.
func compareForms(t *testing.T, f *framework.Fleet, c ovmCase, refEnv, formEnv *cacheEnv, forms []ovmForm) {
	t.Helper()
	var argLists [][]string
	var envs []*cacheEnv
	for _, ctx := range f.Contexts {
		argLists = append(argLists, withContext(c.args, ctx))
		envs = append(envs, refEnv)
	}
	for _, form := range forms {
		argLists = append(argLists, withContext(c.args, form.flag))
		envs = append(envs, formEnv)
	}
	results := runConcurrently(t, envs, argLists)
	refs := map[string]framework.Result{}
	for i, ctx := range f.Contexts {
		refs[ctx] = results[i]
	}
	for i, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			compareAnswer(t, c.kind, refs, form, results[len(f.Contexts)+i], false)
		})
	}
}

// compareAnswer compares the result of form with the references, the
// answers of each context on its own.
//
// With interrupted, the commands were stopped by SIGINT (as Ctrl-C), and a
// reference may end with any exit code; the form must end with the same.
func compareAnswer(t *testing.T, kind ovmKind, refs map[string]framework.Result, form ovmForm, got framework.Result, interrupted bool) {
	t.Helper()
	cmd := func(ctx string) string { return "--context " + ctx }
	for _, ctx := range form.contexts {
		ref := refs[ctx]
		if ref.TimedOut || (ref.ExitCode != 0 && kind != kindNotFound && !interrupted) {
			t.Fatalf("the reference, %s, failed: %s", cmd(ctx), ref)
		}
		if got.ExitCode != ref.ExitCode {
			t.Errorf("exit code %d, want %d (as %s)\n--- got:\n%s\n--- want (%s):\n%s", got.ExitCode, ref.ExitCode, cmd(ctx), got, cmd(ctx), ref)
			return
		}
	}
	if kind == kindNotFound {
		compareNotFound(t, form, refs, got)
		return
	}
	split, err := fleetSplit(kind, got.Stdout, form.contexts)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	wants := map[string]ovmAnswer{}
	var concat ovmAnswer
	for _, ctx := range form.contexts {
		want, err := oneAnswer(kind, refs[ctx].Stdout)
		if err != nil {
			t.Fatalf("the reference, %s: %v\n%s", cmd(ctx), err, refs[ctx])
		}
		if len(want) == 0 {
			t.Fatalf("the reference, %s, answers nothing: the comparison would prove nothing\n%s", cmd(ctx), refs[ctx])
		}
		wants[ctx] = want
		concat = append(concat, want...)
	}
	several := len(form.contexts) > 1
	switch {
	case kind == kindConcat && several:
		if !split.none.equal(concat) {
			t.Errorf("--context %s -o jsonpath:\n got:\n%swant (each context's answer in turn):\n%s", form.flag, split.none, concat)
		}
		return
	case kind == kindGroups && several:
		compareGroups(t, form, refs, got)
		return
	case kind == kindCapacity && several:
		compareCapacityTotal(t, form, refs, split)
		for ctx, want := range wants {
			wants[ctx] = withoutTotal(want)
		}
	}
	for _, ctx := range form.contexts {
		gotPart := split.byContext[ctx]
		if !gotPart.equal(wants[ctx]) {
			t.Errorf("--context %s, the rows of %s:\n got:\n%swant (--context %s):\n%s%s", form.flag, ctx, gotPart, ctx, wants[ctx], stderrNote(got))
		}
	}
	for ctx := range split.byContext {
		if !slices.Contains(form.contexts, ctx) {
			t.Errorf("--context %s answers for context %s, which it does not select", form.flag, ctx)
		}
	}
	if len(split.none) > 0 && !(kind == kindCapacity && several) {
		t.Errorf("--context %s prints lines of no context:\n%s", form.flag, split.none)
	}
}

// stderrNote is r's stderr for a failure message, if it has any.
func stderrNote(r framework.Result) string {
	if r.Stderr == "" {
		return ""
	}
	return fmt.Sprintf("(its stderr, exit code %d:\n%s)", r.ExitCode, r.Stderr)
}

// compareNotFound checks an empty answer: stdout empty as one context's,
// stderr saying what one context says (once, if every context says the
// same).
func compareNotFound(t *testing.T, form ovmForm, refs map[string]framework.Result, got framework.Result) {
	t.Helper()
	var want []string
	for _, ctx := range form.contexts {
		if refs[ctx].Stdout != "" {
			t.Fatalf("the reference, --context %s, prints an answer: %s", ctx, refs[ctx])
		}
		for _, line := range strings.Split(strings.TrimRight(refs[ctx].Stderr, "\n"), "\n") {
			if !slices.Contains(want, line) {
				want = append(want, line)
			}
		}
	}
	var gotErr []string
	if got.Stderr != "" {
		gotErr = strings.Split(strings.TrimRight(got.Stderr, "\n"), "\n")
	}
	if got.Stdout != "" || !slices.Equal(gotErr, want) {
		t.Errorf("--context %s, an empty answer:\n got stdout %q, stderr %q\nwant stdout \"\", stderr %q (as one context)", form.flag, got.Stdout, gotErr, want)
	}
}

// compareGroups checks a grouped table of several contexts: the same
// header as one context's, each group's numbers the sums of the
// contexts' (TOTAL included).
func compareGroups(t *testing.T, form ovmForm, refs map[string]framework.Result, got framework.Result) {
	t.Helper()
	gotTables := parseTables(got.Stdout)
	var refTables []ovmTable
	for _, ctx := range form.contexts {
		refTables = append(refTables, parseTables(refs[ctx].Stdout)...)
	}
	if len(gotTables) != 1 || len(refTables) == 0 {
		t.Fatalf("--context %s: want one grouped table:\n%s", form.flag, got)
	}
	if !slices.Equal(gotTables[0].header, refTables[0].header) {
		t.Errorf("--context %s: header %q, want %q (as one context)", form.flag, gotTables[0].header, refTables[0].header)
	}
	gotSums, wantSums := groupsAnswer(groupSums(gotTables)), groupsAnswer(groupSums(refTables))
	if !gotSums.equal(wantSums) {
		t.Errorf("--context %s, the groups (percentages aside):\n got:\n%swant (the sums of each context's groups):\n%s", form.flag, gotSums, wantSums)
	}
}

// compareCapacityTotal checks capacity's TOTAL row across contexts: the
// sums of each context's TOTAL row (percentages aside).
func compareCapacityTotal(t *testing.T, form ovmForm, refs map[string]framework.Result, split ovmSplit) {
	t.Helper()
	var refTotals []ovmTable
	for _, ctx := range form.contexts {
		for _, tb := range parseTables(refs[ctx].Stdout) {
			refTotals = append(refTotals, ovmTable{header: tb.header, rows: totalRows(tb.rows)})
		}
	}
	var gotTotals []ovmTable
	var header []string
	for i, line := range split.none {
		if i == 0 {
			header = line
			continue
		}
		gotTotals = append(gotTotals, ovmTable{header: header, rows: [][]string{line}})
	}
	gotSums, wantSums := groupsAnswer(groupSums(gotTotals)), groupsAnswer(groupSums(refTotals))
	if !gotSums.equal(wantSums) {
		t.Errorf("--context %s, the TOTAL row (percentages aside):\n got:\n%swant (the sums of each context's TOTAL):\n%s", form.flag, gotSums, wantSums)
	}
}

func totalRows(rows [][]string) [][]string {
	var out [][]string
	for _, r := range rows {
		if len(r) > 0 && strings.TrimSpace(r[0]) == "TOTAL" {
			out = append(out, r)
		}
	}
	return out
}

// withoutTotal is a capacity answer without its TOTAL row.
func withoutTotal(a ovmAnswer) ovmAnswer {
	var out ovmAnswer
	for _, line := range a {
		if len(line) > 0 && strings.TrimSpace(line[0]) == "TOTAL" {
			continue
		}
		out = append(out, line)
	}
	return out
}

// ovmCacheStatus is what cache status -o json prints per cache, the
// fields that do not change while a cache runs.
type ovmCacheStatus struct {
	Socket string `json:"socket"`
	Error  string `json:"error"`
	Status *struct {
		Pid         int    `json:"pid"`
		Server      string `json:"server"`
		User        string `json:"user"`
		Context     string `json:"context"`
		Socket      string `json:"socket"`
		Build       string `json:"build"`
		IdleTimeout string `json:"idleTimeout"`
		Caches      []struct {
			Type string `json:"type"`
		} `json:"caches"`
	} `json:"status"`
}

// cacheStatuses runs cache status -o json with args and returns its
// entries by the context of their cache.
func cacheStatuses(t *testing.T, e *cacheEnv, args ...string) (map[string]ovmCacheStatus, framework.Result) {
	t.Helper()
	r := ovmRun(t, e, append([]string{"cache", "status", "-o", "json"}, args...)...)
	var entries []ovmCacheStatus
	if err := json.Unmarshal([]byte(r.Stdout), &entries); err != nil {
		t.Fatalf("cache status -o json %v: %v\n%s", args, err, r)
	}
	out := map[string]ovmCacheStatus{}
	for _, en := range entries {
		if en.Status != nil {
			out[en.Status.Context] = en
		}
	}
	return out, r
}

// holds reports whether the cache of st holds type typ.
func (st ovmCacheStatus) holds(typ string) bool {
	if st.Status == nil {
		return false
	}
	for _, c := range st.Status.Caches {
		if c.Type == typ || strings.HasPrefix(c.Type, typ+".") {
			return true
		}
	}
	return false
}

// fields is the comparable part of st: its identity and socket.
func (st ovmCacheStatus) fields() string {
	if st.Status == nil {
		return fmt.Sprintf("no cache (%s)", st.Error)
	}
	s := st.Status
	return fmt.Sprintf("pid %d, server %s, user %s, context %s, socket %s, build %s, idle timeout %s", s.Pid, s.Server, s.User, s.Context, s.Socket, s.Build, s.IdleTimeout)
}

// testCache starts a warm cache per context, compares cache start, status
// and stop in each form with one context's, and runs every command
// through the warm caches in each form (one context too) against one
// context's direct answer.
func testCache(t *testing.T, f *framework.Fleet, cold, warm *cacheEnv, forms []ovmForm) {
	// The references: each context's cache started on its own.
	for _, ctx := range f.Contexts {
		if r := ovmRun(t, warm, "cache", "start", "--context", ctx, "--idle-timeout", "10m"); r.ExitCode != 0 || !strings.Contains(r.Stdout, "started a cache for ") {
			t.Fatalf("cache start --context %s: %s", ctx, r)
		}
	}
	t.Run("cache start when running", func(t *testing.T) {
		compareMessages(t, f, warm, []string{"cache", "start", "--idle-timeout", "10m"}, forms[1:])
	})
	t.Run("cache status", func(t *testing.T) {
		refs := map[string]ovmCacheStatus{}
		for _, ctx := range f.Contexts {
			st, _ := cacheStatuses(t, warm, "--context", ctx)
			refs[ctx] = st[ctx]
		}
		for _, form := range forms[1:] {
			t.Run(form.name, func(t *testing.T) {
				got, r := cacheStatuses(t, warm, "--context", form.flag)
				for _, ctx := range form.contexts {
					if g, w := got[ctx].fields(), refs[ctx].fields(); g != w {
						t.Errorf("--context %s, the cache of %s:\n got %s\nwant %s (--context %s)\n%s", form.flag, ctx, g, w, ctx, r)
					}
				}
				for ctx := range got {
					if !slices.Contains(form.contexts, ctx) {
						t.Errorf("--context %s lists the cache of %s, which it does not select", form.flag, ctx)
					}
				}
			})
		}
	})
	t.Run("warm", func(t *testing.T) {
		for _, c := range ovmCases {
			t.Run(c.name, func(t *testing.T) {
				compareForms(t, f, c, cold, warm, forms)
			})
		}
	})
	t.Run("warm live", func(t *testing.T) {
		testLive(t, f, cold, warm, forms)
	})
	t.Run("answered by the warm cache", func(t *testing.T) {
		testWarmUse(t, f, warm, forms)
	})
	t.Run("cache stop", func(t *testing.T) {
		// Each form stops the caches it selects; the references are
		// one context's stop, each cache started again for the next form.
		refs := map[string]framework.Result{}
		for _, ctx := range f.Contexts {
			refs[ctx] = ovmRun(t, warm, "cache", "stop", "--context", ctx)
		}
		for _, form := range forms[1:] {
			t.Run(form.name, func(t *testing.T) {
				for _, ctx := range form.contexts {
					if r := ovmRun(t, warm, "cache", "start", "--context", ctx, "--idle-timeout", "10m"); r.ExitCode != 0 {
						t.Fatalf("cache start --context %s: %s", ctx, r)
					}
				}
				got := ovmRun(t, warm, "cache", "stop", "--context", form.flag)
				compareMessageResults(t, form, refs, got)
			})
		}
		t.Run("none running", func(t *testing.T) {
			compareMessages(t, f, warm, []string{"cache", "stop"}, forms[1:])
		})
	})
}

// compareMessages runs args in each context on its own, then in each form,
// and compares what they print, stdout and stderr, the context aside.
func compareMessages(t *testing.T, f *framework.Fleet, e *cacheEnv, args []string, forms []ovmForm) {
	t.Helper()
	refs := map[string]framework.Result{}
	for _, ctx := range f.Contexts {
		refs[ctx] = ovmRun(t, e, withContext(args, ctx)...)
	}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			compareMessageResults(t, form, refs, ovmRun(t, e, withContext(args, form.flag)...))
		})
	}
}

// compareMessageResults compares the messages of a form with each
// context's.
func compareMessageResults(t *testing.T, form ovmForm, refs map[string]framework.Result, got framework.Result) {
	t.Helper()
	for _, ctx := range form.contexts {
		if got.ExitCode != refs[ctx].ExitCode {
			t.Errorf("--context %s: exit code %d, want %d (--context %s)\n--- got:\n%s\n--- want:\n%s", form.flag, got.ExitCode, refs[ctx].ExitCode, ctx, got, refs[ctx])
		}
	}
	for _, stream := range []struct {
		name string
		out  func(framework.Result) string
	}{
		{"stdout", func(r framework.Result) string { return r.Stdout }},
		{"stderr", func(r framework.Result) string { return r.Stderr }},
	} {
		split := splitLines(stream.out(got), form.contexts)
		for _, ctx := range form.contexts {
			want := linesAnswer(stream.out(refs[ctx]))
			if !split.byContext[ctx].equal(want) {
				t.Errorf("--context %s, %s about %s:\n got:\n%swant (--context %s):\n%s", form.flag, stream.name, ctx, split.byContext[ctx], ctx, want)
			}
		}
		if len(split.none) > 0 {
			t.Errorf("--context %s, %s about no context:\n%s", form.flag, stream.name, split.none)
		}
	}
}

// testWarmUse runs query, query -w and watch in each form, each on a type
// no other command reads, and checks that the warm cache of every context
// the form selects then holds that type: the command was answered by it.
func testWarmUse(t *testing.T, f *framework.Fleet, warm *cacheEnv, forms []ovmForm) {
	probes := map[string][]string{ // command → a type per form
		"query":    {"limitranges", "resourcequotas", "podtemplates"},
		"query -w": {"replicationcontrollers", "poddisruptionbudgets", "horizontalpodautoscalers"},
		"watch":    {"networkpolicies", "ingresses", "cronjobs"},
	}
	for _, command := range []string{"query", "query -w", "watch"} {
		t.Run(command, func(t *testing.T) {
			for i, form := range forms {
				typ := probes[command][i]
				t.Run(form.name, func(t *testing.T) {
					var r framework.Result
					switch command {
					case "query":
						r = ovmRun(t, warm, "query", typ, "-n", ovmNamespace, "--context", form.flag)
					case "query -w":
						// Ended by the framework's interrupt, as Ctrl-C.
						r = framework.Run(t, framework.Cmd{
							Args:       []string{"informer", "query", typ, "-n", ovmNamespace, "-w", "--context", form.flag},
							Kubeconfig: f.Kubeconfig, Env: warm.env(), Timeout: 4 * time.Second,
						})
					case "watch":
						r = ovmRun(t, warm, "watch", typ, "-n", ovmNamespace, "--timeout", "3s", "--context", form.flag)
					}
					st, _ := cacheStatuses(t, warm, "--context", strings.Join(form.contexts, ","))
					for _, ctx := range form.contexts {
						if !st[ctx].holds(typ) {
							t.Errorf("%s %s --context %s: the warm cache of %s does not hold %s afterwards (it was not asked); want it answered by the warm cache, as --context %s is\n%s", command, typ, form.flag, ctx, typ, ctx, r)
						}
					}
				})
			}
		})
	}
}

// testLive compares query -w and watch with changes made while they run,
// the references run with refEnv, the forms with formEnv.
func testLive(t *testing.T, f *framework.Fleet, refEnv, formEnv *cacheEnv, forms []ovmForm) {
	ns := ovmLiveNamespace
	t.Run("query -w --group-by --sum", func(t *testing.T) {
		args := []string{"query", "pods", "-n", ns, "-w", "--group-by", "label:app", "--sum", "requests.cpu"}
		// The table: header, a group, TOTAL.
		results := runLive(t, f, refEnv, formEnv, args, forms, func(form ovmForm) int { return 3 }, nil, nil)
		compareLive(t, f, kindGroups, results, forms, true)
	})
	t.Run("query -w", func(t *testing.T) {
		args := []string{"query", "pods", "-n", ns, "-w"}
		// The table: header and context I's I pods; then a row per pod
		// created in each context.
		initial := func(form ovmForm) int {
			n := 1
			for _, ctx := range form.contexts {
				n += slices.Index(f.Contexts, ctx) + 1
			}
			return n
		}
		change := func(t *testing.T) {
			for _, ctx := range f.Contexts {
				runKubectl(t, f, ovmLivePodYAML("live-new"), "create", "-f", "-", "--context", ctx)
			}
		}
		results := runLive(t, f, refEnv, formEnv, args, forms, initial, change, func(out string) int { return strings.Count(out, "live-new") })
		for _, ctx := range f.Contexts {
			runKubectl(t, f, "", "delete", "pod", "live-new", "-n", ns, "--context", ctx, "--grace-period=0", "--force")
		}
		compareLive(t, f, kindLiveTable, results, forms, true)
	})
	t.Run("watch --until", func(t *testing.T) {
		args := []string{"watch", "configmaps", "-n", ns, "--initial", "--until", `object.data.step == "2"`, "--timeout", "90s"}
		for _, ctx := range f.Contexts {
			runKubectl(t, f, "", "patch", "configmap", "live", "-n", ns, "--context", ctx, "-p", `{"data":{"step":"0"}}`)
		}
		initial := func(form ovmForm) int { return len(form.contexts) } // ADDED configmap/live
		change := func(t *testing.T) {
			for _, step := range []string{"1", "2"} {
				for _, ctx := range f.Contexts {
					runKubectl(t, f, "", "patch", "configmap", "live", "-n", ns, "--context", ctx, "-p", `{"data":{"step":"`+step+`"}}`)
				}
			}
		}
		results := runLive(t, f, refEnv, formEnv, args, forms, initial, change, nil)
		for i, ctx := range f.Contexts {
			if !strings.Contains(results[i].Stdout, `data.step: "1" → "2"`) {
				t.Fatalf("the reference, --context %s, did not print the change: the comparison would prove little\n%s", ctx, results[i])
			}
		}
		compareLive(t, f, kindLines, results, forms, false)
	})
}

// runLive starts args in each context on its own and in each form, waits
// until each has printed its first lines (initial), makes the change, waits
// until each has printed a line per context it selects for it (changed
// counts them in the output so far; nil: until the command exits by
// itself), and returns the results, the references first.
func runLive(t *testing.T, f *framework.Fleet, refEnv, formEnv *cacheEnv, args []string, forms []ovmForm, initial func(ovmForm) int, change func(*testing.T), changed func(string) int) []framework.Result {
	t.Helper()
	all := make([]ovmForm, 0, len(f.Contexts)+len(forms))
	for _, ctx := range f.Contexts {
		all = append(all, ovmForm{name: ctx, flag: ctx, contexts: []string{ctx}})
	}
	all = append(all, forms...)
	procs := make([]*framework.Process, len(all))
	for i, form := range all {
		env := formEnv
		if i < len(f.Contexts) {
			env = refEnv
		}
		procs[i] = framework.Start(t, framework.Cmd{
			Args:       append([]string{"informer"}, withContext(args, form.flag)...),
			Kubeconfig: f.Kubeconfig, Env: env.env(), Timeout: 3 * time.Minute,
		})
	}
	waitAll := func(what string, enough func(i int, out string) bool) {
		deadline := time.Now().Add(time.Minute)
		for i, p := range procs {
			for !enough(i, p.Stdout()) {
				select {
				case <-p.Done():
				case <-time.After(100 * time.Millisecond):
				}
				if isDone(p) {
					break
				}
				if time.Now().After(deadline) {
					t.Logf("--context %s: not %s within a minute; stdout so far:\n%s", all[i].flag, what, p.Stdout())
					break
				}
			}
		}
	}
	waitAll("the first lines", func(i int, out string) bool { return strings.Count(out, "\n") >= initial(all[i]) })
	if change != nil {
		change(t)
	}
	if changed != nil {
		waitAll("the changes", func(i int, out string) bool { return changed(out) >= len(all[i].contexts) })
	}
	results := make([]framework.Result, len(procs))
	for i, p := range procs {
		if changed != nil || change == nil {
			if !isDone(p) {
				_ = p.Interrupt()
			}
		}
		results[i] = p.Wait()
	}
	for i, ctx := range f.Contexts {
		if changed != nil && changed(results[i].Stdout) < 1 {
			t.Fatalf("the reference, --context %s, did not print the change: the comparison would prove little\n%s", ctx, results[i])
		}
	}
	return results
}

func isDone(p *framework.Process) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

// compareLive compares the results of runLive.
func compareLive(t *testing.T, f *framework.Fleet, kind ovmKind, results []framework.Result, forms []ovmForm, interrupted bool) {
	t.Helper()
	refs := map[string]framework.Result{}
	for i, ctx := range f.Contexts {
		refs[ctx] = results[i]
	}
	for i, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			compareAnswer(t, kind, refs, form, results[len(f.Contexts)+i], interrupted)
		})
	}
}
