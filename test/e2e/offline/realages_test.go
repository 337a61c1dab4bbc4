package offline

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/internal/realdump"
)

// TestRealMustGatherAges asks a real must-gather (an OpenShift CI
// cluster's, taken in 2021) for its pods: each pod's AGE, and the time
// since the last restart in RESTARTS, count from when the must-gather was
// taken, as the test computes them from the files by kubectl's rules (the
// newest time in the timestamp file, the pods' creationTimestamp and their
// containers' last termination, duration.HumanDuration), and stderr says
// so once.
func TestRealMustGatherAges(t *testing.T) {
	root, err := realdump.Unpack(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	taken := timestampFileTime(t, filepath.Join(root, "timestamp"))
	pods := mustGatherPods(t, root)
	if len(pods) < 200 {
		t.Fatalf("the must-gather's namespaces/*/core/pods.yaml hold %d pods, want its 239", len(pods))
	}

	r := offline(t, "query", "pods", "-A", "--from", root)
	if r.ExitCode != 0 {
		t.Fatalf("query pods -A --from the must-gather: %s", r)
	}
	if want := "ages as of " + taken.UTC().Format(time.RFC3339) + ", when the dump was taken\n"; r.Stderr != want {
		t.Errorf("stderr = %q, want %q", r.Stderr, want)
	}
	rows := tableCells(t, r.Stdout, "NAMESPACE", "NAME", "RESTARTS", "AGE")
	if len(rows) != len(pods) {
		t.Errorf("the table has %d rows, the files %d pods", len(rows), len(pods))
	}
	restarted := 0
	for _, row := range rows {
		key := row["NAMESPACE"] + "/" + row["NAME"]
		pod, ok := pods[key]
		if !ok {
			t.Errorf("the table has %s, which the files do not hold", key)
			continue
		}
		if want := duration.HumanDuration(taken.Sub(pod.CreationTimestamp.Time)); row["AGE"] != want {
			t.Errorf("%s: AGE %q, want %q (created %s, the must-gather taken %s)", key, row["AGE"], want, pod.CreationTimestamp.UTC().Format(time.RFC3339), taken.Format(time.RFC3339Nano))
		}
		if last := lastRestart(pod); len(pod.Spec.InitContainers) == 0 && !last.IsZero() {
			restarted++
			if want := "(" + duration.HumanDuration(taken.Sub(last)) + " ago)"; !strings.HasSuffix(row["RESTARTS"], want) {
				t.Errorf("%s: RESTARTS %q, want it to end %q", key, row["RESTARTS"], want)
			}
		}
	}
	if restarted == 0 {
		t.Errorf("no pod of the must-gather has restarted: RESTARTS' ages are not checked")
	}
	t.Logf("%d pods, %d restarted, ages as of %s", len(rows), restarted, taken.Format(time.RFC3339Nano))
}

// timestampFileTime returns the newest time in a must-gather's timestamp
// file, whose lines are Go's time.Time String form (with the monotonic
// clock's "m=+…").
func timestampFileTime(t *testing.T, path string) time.Time {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var newest time.Time
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(strings.TrimSpace(sc.Text()), " m=")
		if line == "" {
			continue
		}
		at, err := time.Parse("2006-01-02 15:04:05.999999999 -0700 MST", line)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if at.After(newest) {
			newest = at
		}
	}
	if err := sc.Err(); err != nil || newest.IsZero() {
		t.Fatalf("%s holds no time (%v)", path, err)
	}
	return newest
}

// mustGatherPods reads the pods of every namespaces/NS/core/pods.yaml,
// keyed NAMESPACE/NAME.
func mustGatherPods(t *testing.T, root string) map[string]corev1.Pod {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "namespaces", "*", "core", "pods.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pods := map[string]corev1.Pod{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var list corev1.PodList
		if err := yaml.Unmarshal(data, &list); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, pod := range list.Items {
			pods[pod.Namespace+"/"+pod.Name] = pod
		}
	}
	return pods
}

// lastRestart is when a container of pod last terminated, as kubectl's
// RESTARTS column reads it for a pod without init containers (the only
// pods it is asked for): the latest lastState.terminated.finishedAt of its
// containers, when they restarted; zero otherwise.
func lastRestart(pod corev1.Pod) time.Time {
	var last time.Time
	restarts := int32(0)
	for _, s := range pod.Status.ContainerStatuses {
		restarts += s.RestartCount
		if s.LastTerminationState.Terminated != nil && s.LastTerminationState.Terminated.FinishedAt.After(last) {
			last = s.LastTerminationState.Terminated.FinishedAt.Time
		}
	}
	if restarts == 0 {
		return time.Time{}
	}
	return last
}

// tableCells reads a table as kubectl prints it, each cell under its
// header (kubectl aligns runes), and returns each row's cells of columns.
// The last column's cell runs to the end of the line; the others end at
// the next column's header.
func tableCells(t *testing.T, out string, columns ...string) []map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	header := []rune(lines[0])
	type column struct {
		name       string
		start, end int
	}
	var cols []column
	for i := 0; i < len(header); {
		for i < len(header) && header[i] == ' ' {
			i++
		}
		start := i
		for i < len(header) && header[i] != ' ' {
			i++
		}
		if start < i {
			cols = append(cols, column{name: string(header[start:i]), start: start})
		}
	}
	for i := range cols {
		cols[i].end = -1
		if i+1 < len(cols) {
			cols[i].end = cols[i+1].start
		}
	}
	var rows []map[string]string
	for _, line := range lines[1:] {
		runes := []rune(line)
		row := map[string]string{}
		for _, c := range cols {
			end := c.end
			if end < 0 || end > len(runes) {
				end = len(runes)
			}
			if c.start < end {
				row[c.name] = strings.TrimSpace(string(runes[c.start:end]))
			}
		}
		rows = append(rows, row)
	}
	for _, name := range columns {
		if !slices.ContainsFunc(cols, func(c column) bool { return c.name == name }) {
			t.Fatalf("the table has no %s column:\n%s", name, out)
		}
	}
	return rows
}
