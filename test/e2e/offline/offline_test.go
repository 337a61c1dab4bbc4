package offline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// dumpAttempts bounds how often the dumps are taken again when a live
// answer changed while they were taken.
const dumpAttempts = 3

// TestOffline takes the live answers of every question and the dumps at
// the same moment, stops the API server, and asks each question of each
// dump that holds its types, with no kubeconfig: the answers must be the
// live ones, ages aside, but for the line that says their ages count from
// when the dump was taken. Then watch --from a dump prints each pod once
// and exits.
func TestOffline(t *testing.T) {
	c := framework.Current(t)
	began := time.Now()
	f := createWorkloads(t)
	qs := questions(f)

	// The live answers before and after the dumps must agree, so that
	// they are the answers at dump time.
	var dumps []dump
	var answers map[string]framework.Result
	for attempt := 1; ; attempt++ {
		before := ask(t, qs)
		dumps = takeDumps(t, filepath.Join(t.TempDir(), fmt.Sprintf("attempt-%d", attempt)))
		answers = ask(t, qs)
		changed := changedAnswers(qs, before, answers)
		if len(changed) == 0 {
			break
		}
		if attempt == dumpAttempts {
			t.Fatalf("live answers changed while the cluster was dumped, %d times in a row: %s", attempt, strings.Join(changed, "\n"))
		}
		t.Logf("live answers changed while the cluster was dumped; dumping again: %s", strings.Join(changed, "\n"))
		time.Sleep(5 * time.Second)
	}
	dumped := time.Now()
	checkLiveAnswers(t, qs, answers)

	if err := c.StopAPIServer(); err != nil {
		t.Fatalf("stopping the API server: %v", err)
	}
	t.Cleanup(func() {
		if err := c.StartAPIServer(); err != nil {
			t.Errorf("starting the API server again: %v", err)
		}
	})
	if r := framework.Run(t, framework.Cmd{Args: []string{"get", "namespaces"}, Timeout: 30 * time.Second}); r.ExitCode == 0 {
		t.Fatalf("kubectl get namespaces worked with the API server stopped: %s", r)
	}

	for _, d := range dumps {
		t.Run(d.name, func(t *testing.T) {
			compared := 0
			var skipped []string
			var held map[string]map[string]any
			if d.typedDir != "" {
				held = heldObjects(t, d.typedDir)
			}
			for _, q := range qs {
				if !q.heldBy(d) {
					skipped = append(skipped, q.name)
					continue
				}
				compared++
				want := answers[q.name]
				got := offline(t, append(slices.Clone(q.args), d.fromArgs()...)...)
				got = checkAgesNote(t, q, d, got, began, dumped)
				diff := compare(want, got)
				if d.typedDir != "" && q.printsObjects() {
					diff = compare(framework.Result{ExitCode: want.ExitCode, Stderr: want.Stderr}, framework.Result{ExitCode: got.ExitCode, Stderr: got.Stderr})
					if objects := compareHeldObjects(want.Stdout, got.Stdout, held); objects != "" {
						diff = strings.TrimPrefix(diff+"; "+objects, "; ")
					}
				}
				if diff != "" {
					t.Errorf("kubectl informer %s %s: %s\n--- live:\n%s\n--- offline:\n%s", shellJoin(q.args), shellJoin(d.fromArgs()), diff, want, got)
				}
			}
			t.Logf("%d questions answered as live; not asked (the dump lacks their types): %s", compared, strings.Join(skipped, ", "))
			if compared < 10 {
				t.Errorf("only %d questions compared for dump %s", compared, d.name)
			}
		})
	}

	t.Run("watch", func(t *testing.T) { testWatch(t, dumps) })
}

// agesNote is the line a command prints first when its ages count from
// when a dump was taken: its time, and, for a dump without a must-gather's
// timestamp file, where that time was found.
var agesNote = regexp.MustCompile(`^ages as of (\S+), when the dump was taken( \(the newest [A-Za-z]+ in [^\n]+\))?\n`)

// checkAgesNote checks the line got begins its stderr with when q prints
// ages over dump d, and returns got without it: the must-gather's
// timestamp file's time, or for the other dumps the newest time their
// objects hold, which is no earlier than the test's workloads were
// created (began) and no later than the dumps were taken (dumped). Other
// questions must not print it.
func checkAgesNote(t *testing.T, q question, d dump, got framework.Result, began, dumped time.Time) framework.Result {
	t.Helper()
	m := agesNote.FindStringSubmatch(got.Stderr)
	if !q.printsAges() {
		if strings.Contains(got.Stderr, "ages as of") {
			t.Errorf("kubectl informer %s %s prints no ages, yet says from when they count:\n%s", shellJoin(q.args), shellJoin(d.fromArgs()), got.Stderr)
		}
		return got
	}
	if m == nil {
		t.Errorf("kubectl informer %s %s: stderr does not begin with the line that says from when ages count:\n%s", shellJoin(q.args), shellJoin(d.fromArgs()), got.Stderr)
		return got
	}
	at, err := time.Parse(time.RFC3339, m[1])
	switch {
	case err != nil:
		t.Errorf("kubectl informer %s %s: %q: %v", shellJoin(q.args), shellJoin(d.fromArgs()), m[0], err)
	case !d.stamped.IsZero() && (!at.Equal(d.stamped.Truncate(time.Second)) || m[2] != ""):
		t.Errorf("kubectl informer %s %s: %q, want ages as of the timestamp file's %s", shellJoin(q.args), shellJoin(d.fromArgs()), m[0], d.stamped.Format(time.RFC3339Nano))
	case d.stamped.IsZero() && (at.Before(began.Truncate(time.Second)) || at.After(dumped) || m[2] == ""):
		t.Errorf("kubectl informer %s %s: %q, want ages as of the newest time the objects hold (where it was found), between %s and %s", shellJoin(q.args), shellJoin(d.fromArgs()), m[0], began.Format(time.RFC3339), dumped.Format(time.RFC3339))
	}
	got.Stderr = strings.TrimPrefix(got.Stderr, m[0])
	return got
}

// ask takes the live answer of every question.
func ask(t *testing.T, qs []question) map[string]framework.Result {
	t.Helper()
	answers := map[string]framework.Result{}
	for _, q := range qs {
		answers[q.name] = live(t, q.args...)
	}
	return answers
}

// changedAnswers names the questions whose answers differ between a and b.
func changedAnswers(qs []question, a, b map[string]framework.Result) []string {
	var changed []string
	for _, q := range qs {
		if diff := compare(a[q.name], b[q.name]); diff != "" {
			changed = append(changed, fmt.Sprintf("%s: %s", q.name, diff))
		}
	}
	return changed
}

// compare says how got differs from want: exit code, standard output with
// ages blanked, standard error; "" if it does not.
func compare(want, got framework.Result) string {
	var diffs []string
	if got.TimedOut {
		diffs = append(diffs, "timed out")
	}
	if got.ExitCode != want.ExitCode {
		diffs = append(diffs, fmt.Sprintf("exit code %d, want %d", got.ExitCode, want.ExitCode))
	}
	if withoutAge(got.Stdout) != withoutAge(want.Stdout) {
		diffs = append(diffs, "stdout differs")
	}
	if got.Stderr != want.Stderr {
		diffs = append(diffs, "stderr differs")
	}
	return strings.Join(diffs, "; ")
}

// checkLiveAnswers fails the test if a live answer is not what the
// workloads make it: the comparisons would prove little.
func checkLiveAnswers(t *testing.T, qs []question, answers map[string]framework.Result) {
	t.Helper()
	for _, q := range qs {
		r := answers[q.name]
		switch q.name {
		case "missing tree root", "unsupported field selector":
			if r.ExitCode != 1 {
				t.Errorf("live %s: %s\nwant exit code 1", shellJoin(q.args), r)
			}
		case "no match":
			if r.ExitCode != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, "No resources found") {
				t.Errorf("live %s: %s\nwant No resources found", shellJoin(q.args), r)
			}
		default:
			if r.ExitCode != 0 || strings.TrimSpace(r.Stdout) == "" {
				t.Errorf("live %s: %s\nwant an answer", shellJoin(q.args), r)
			}
		}
	}
	for name, want := range map[string][]string{
		"pods of a deployment":      {"pod/web-"},
		"unscheduled pods":          {"huge", "Pending"},
		"pods per workload":         {"Deployment/web", "StatefulSet/db", "DaemonSet/agent", "Job/report", "Deployment/hello"},
		"tree of a deployment":      {"Deployment/web", "ReplicaSet/web-", "Pod/web-"},
		"tree of a statefulset":     {"StatefulSet/db", "Pod/db-0", "ControllerRevision/db-"},
		"widgets":                   {"gear", "red", "sprocket", "COLOR"},
		"capacity per zone":         {"zone-a", "zone-b", "zone-c", "TOTAL"},
		"pods behind a service":     {"pod/web-"},
		"succeeded pods":            {"report-", "Completed"},
		"default namespace":         {"hello"},
		"sums per namespace":        {"shop", "TOTAL"},
		"tree of a service":         {"Service/web", "Pod/web-", "EndpointSlice/web-"},
		"pods as json":              {`"kind": "Pod"`, "cart-"},
		"nodes by label":            {"node/kwok-node-1"},
		"pods per workload in shop": {"Deployment/web", "Deployment/cart"},
	} {
		r := answers[name]
		for _, w := range want {
			if !strings.Contains(r.Stdout, w) {
				t.Errorf("live answer %q lacks %q:\n%s", name, w, r.Stdout)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// testWatch runs watch --from a dump, which prints every pod the dump
// holds (of the namespace asked for) once, as ADDED, and exits 0.
func testWatch(t *testing.T, dumps []dump) {
	var jsonDump string
	for _, d := range dumps {
		if d.name == "json" {
			jsonDump = d.from[0]
		}
	}
	data, err := os.ReadFile(jsonDump)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("decoding %s: %v", jsonDump, err)
	}
	var all, inDefault []string
	for _, it := range list.Items {
		if it.Kind != "Pod" {
			continue
		}
		key := it.Metadata.Namespace + "/" + it.Metadata.Name
		all = append(all, key)
		if it.Metadata.Namespace == "default" {
			inDefault = append(inDefault, key)
		}
	}
	for _, d := range dumps {
		if !d.holds["pods"] {
			continue
		}
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"watch", "pods", "-o", "json"}, inDefault},
			{[]string{"watch", "pods", "-A", "-o", "json"}, all},
		} {
			t.Run(d.name+"/"+strings.Join(tc.args[2:], " "), func(t *testing.T) {
				r := offline(t, append(slices.Clone(tc.args), d.fromArgs()...)...)
				if r.ExitCode != 0 || r.TimedOut {
					t.Fatalf("kubectl informer %s %s: %s\nwant exit code 0", shellJoin(tc.args), shellJoin(d.fromArgs()), r)
				}
				var got []string
				for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
					var ev struct {
						Type   string `json:"type"`
						Object struct {
							Kind     string `json:"kind"`
							Metadata struct {
								Namespace string `json:"namespace"`
								Name      string `json:"name"`
							} `json:"metadata"`
						} `json:"object"`
					}
					if err := json.Unmarshal([]byte(line), &ev); err != nil {
						t.Fatalf("a line of watch -o json is not an event: %q: %v", line, err)
					}
					if ev.Type != "ADDED" || ev.Object.Kind != "Pod" {
						t.Errorf("event %s of a %s, want ADDED of a Pod: %s", ev.Type, ev.Object.Kind, line)
					}
					got = append(got, ev.Object.Metadata.Namespace+"/"+ev.Object.Metadata.Name)
				}
				sort.Strings(got)
				want := slices.Sorted(slices.Values(tc.want))
				if !slices.Equal(got, want) {
					t.Errorf("watch printed the pods\n%v\nwant each of the dump's once:\n%v", got, want)
				}
			})
		}
	}
}

// shellJoin quotes args for a failure message.
func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " {}[]\"'$*?()|") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		quoted[i] = a
	}
	return strings.Join(quoted, " ")
}
