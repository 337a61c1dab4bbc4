package query

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

func TestFitFrame(t *testing.T) {
	table := []string{"NAME   STATUS", "a      Running", "b      Running", "c      Pending"}
	tests := []struct {
		name   string
		height int
		want   []string
	}{
		{"fits with room to spare", 24, append(slices.Clone(table), "", "FOOTER")},
		{"fits exactly: height-1 lines", 7, append(slices.Clone(table), "", "FOOTER")},
		{"one line short: the last two rows hidden", 6, []string{"NAME   STATUS", "a      Running", "… 2 more lines not shown: the terminal is 6 lines high", "", "FOOTER"}},
		{"room for the hidden line only", 5, []string{"NAME   STATUS", "… 3 more lines not shown: the terminal is 5 lines high", "", "FOOTER"}},
		{"too low even for that: the footer is kept", 3, []string{"", "FOOTER"}},
		{"one line: the footer alone", 1, []string{"FOOTER"}},
		{"size unknown: not cut", 0, append(slices.Clone(table), "", "FOOTER")},
	}
	// A warning takes a line of the footer.
	got := fitFrame(table, []string{"warning: watch of pods failed", "FOOTER"}, 7)
	want := []string{"NAME   STATUS", "a      Running", "… 2 more lines not shown: the terminal is 7 lines high", "", "warning: watch of pods failed", "FOOTER"}
	if !slices.Equal(got, want) {
		t.Errorf("fitFrame with a warning =\n%q\nwant\n%q", got, want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fitFrame(table, []string{"FOOTER"}, tt.height)
			if !slices.Equal(got, tt.want) {
				t.Errorf("fitFrame(%d lines, height %d) =\n%q\nwant\n%q", len(table), tt.height, got, tt.want)
			}
			if tt.height > 0 && len(got) > max(tt.height-1, 1) {
				t.Errorf("fitFrame(height %d) has %d lines, more than the height less one", tt.height, len(got))
			}
		})
	}
}

// fakeClock is the time a simulated live table reads.
type fakeClock struct{ now time.Time }

func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }

// simulatePacer runs the loop of watchOutput.follow over a fake clock: changes come at
// the offsets given (from the first frame), and a frame is drawn whenever
// the pacer says one is due, taking cost to compute. It returns the offsets
// of the frames drawn until end.
func simulatePacer(changes []time.Duration, cost, end time.Duration) []time.Duration {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: start}
	p := newLivePacer(minRedrawGap, minIdleRedraw)
	var frames []time.Duration
	draw := func() {
		frames = append(frames, clock.now.Sub(start))
		clock.advance(cost)
		p.drawn(clock.now, cost)
	}
	next := 0
	for clock.now.Sub(start) < end {
		if due, _ := p.next(clock.now); due {
			draw()
			continue
		}
		_, wait := p.next(clock.now)
		// Sleep until the frame is due or the next change comes.
		at := clock.now.Add(wait)
		if next < len(changes) && start.Add(changes[next]).Before(at) {
			at = start.Add(changes[next])
		}
		clock.now = at
		for next < len(changes) && !start.Add(changes[next]).After(clock.now) {
			p.dirty = true
			next++
		}
	}
	return frames
}

func TestLivePacerCoalescesChanges(t *testing.T) {
	ms := time.Millisecond
	burst := make([]time.Duration, 100)
	for i := range burst {
		burst[i] = 10*ms + time.Duration(i)*4*ms // 100 changes in 400ms
	}
	tests := []struct {
		name    string
		changes []time.Duration
		cost    time.Duration
		end     time.Duration
		want    []time.Duration
	}{
		{"no change: a frame a second, for the ages", nil, 0, 2500 * ms, []time.Duration{0, 1000 * ms, 2000 * ms}},
		{"a change long after a frame is drawn at once", []time.Duration{600 * ms}, 0, 1000 * ms, []time.Duration{0, 600 * ms}},
		{"a change right after a frame waits for the gap", []time.Duration{10 * ms}, 0, 1000 * ms, []time.Duration{0, 250 * ms}},
		{"a burst of 100 changes is a frame per gap", burst, 0, 600 * ms, []time.Duration{0, 250 * ms, 500 * ms}},
		{"a table that takes 100ms to compute is drawn at most every 400ms", burst, 100 * ms, 1000 * ms, []time.Duration{0, 500 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := simulatePacer(tt.changes, tt.cost, tt.end)
			if !slices.Equal(got, tt.want) {
				t.Errorf("frames at %v, want %v", got, tt.want)
			}
			for i := 1; i < len(got); i++ {
				if gap := got[i] - got[i-1]; gap < minRedrawGap {
					t.Errorf("frames %v and %v are %v apart, less than %v", got[i-1], got[i], gap, minRedrawGap)
				}
			}
		})
	}
}

func TestLastLineKeepsTheLastWarning(t *testing.T) {
	var l lastLine
	fmt.Fprintf(&l, "warning: watch of pods failed (retrying): %s\n", "connection refused")
	fmt.Fprintln(&l, "watch of pods resumed; changes made meanwhile follow")
	fmt.Fprint(&l, "\n")
	if got, want := l.String(), "watch of pods resumed; changes made meanwhile follow"; got != want {
		t.Errorf("lastLine = %q, want %q", got, want)
	}
	fmt.Fprintln(&l, "a\x1b[2Jb")
	if got, want := l.String(), `a\u001b[2Jb`; got != want {
		t.Errorf("lastLine = %q, want the control characters escaped: %q", got, want)
	}
}

func TestLiveFooter(t *testing.T) {
	loc := time.FixedZone("test", 0)
	since := time.Date(2026, 1, 1, 10, 0, 0, 0, loc)
	last := since.Add(90 * time.Second)
	tests := []struct {
		name                     string
		added, modified, deleted int
		want                     string
	}{
		{"before any change", 0, 0, 0, "pods: 3 · no change since 10:00:00 · Ctrl-C to stop"},
		{"after changes", 3, 5, 1, "pods: 3 · 9 changes (3 added, 5 modified, 1 deleted) · last change 10:01:30 · Ctrl-C to stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := liveFooter([]string{"pods: 3"}, tt.added, tt.modified, tt.deleted, last, since, loc); got != tt.want {
				t.Errorf("liveFooter = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRowPrinterPrintsAsKubectlGetWatch checks the rows query -w prints
// off a terminal against what kubectl get -w prints for the same changes:
// the table, then one row per change under it, aligned with it by the tab
// writer's remembered widths (a wider cell widens what follows), the header
// not repeated; deleted objects too; --output-watch-events puts the event
// first; -o name and json print the objects.
func TestRowPrinterPrintsAsKubectlGetWatch(t *testing.T) {
	created := metav1.NewTime(time.Now().Add(-time.Hour))
	pod := func(name string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, CreationTimestamp: created},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}},
			Status:     corev1.PodStatus{Phase: phase},
		}
	}
	changes := []struct {
		typ engine.EventType
		obj *corev1.Pod
	}{
		{engine.Added, pod("web-1", corev1.PodRunning)},
		{engine.Added, pod("web-2", corev1.PodPending)},
		// after the table:
		{engine.Modified, pod("web-2", corev1.PodRunning)},
		{engine.Added, pod("web-with-a-long-name", corev1.PodPending)},
		{engine.Deleted, pod("web-1", corev1.PodRunning)},
	}
	tests := []struct {
		name   string
		output string
		events bool
		want   string
	}{
		{"table", "", false, `NAME    READY   STATUS    RESTARTS   AGE
web-1   0/1     Running   0          60m
web-2   0/1     Pending   0          60m
web-2   0/1     Running   0          60m
web-with-a-long-name   0/1     Pending   0          60m
web-1                  0/1     Running   0          60m
`},
		{"--output-watch-events", "", true, `EVENT      NAME    READY   STATUS    RESTARTS   AGE
ADDED      web-1   0/1     Running   0          60m
ADDED      web-2   0/1     Pending   0          60m
MODIFIED   web-2   0/1     Running   0          60m
ADDED      web-with-a-long-name   0/1     Pending   0          60m
DELETED    web-1                  0/1     Running   0          60m
`},
		{"-o name", "name", false, "pod/web-1\npod/web-2\npod/web-2\npod/web-with-a-long-name\npod/web-1\n"},
		{"-o json --output-watch-events", "json", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := printing.ParseOutput(tt.output)
			if err != nil {
				t.Fatal(err)
			}
			o := &QueryOptions{}
			o.OutputWatchEvents = tt.events
			w := &running{o: o, cfg: queryPrintConfig{out: out, namespaces: []string{"shop"}}}
			var buf bytes.Buffer
			s := newWatchOutput(&buf, []string{""}, false, false, false, -1, false)
			p := &rowPrinter{w: w, s: s, tables: map[*engine.Type]columns.Table{}, now: time.Now()}
			types := &engine.Type{Mapping: &meta.RESTMapping{
				Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
				GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
				Scope:            meta.RESTScopeNamespace,
			}}
			for i, c := range changes {
				if err := p.print(context.Background(), types, c.typ, c.obj); err != nil {
					t.Fatalf("print: %v", err)
				}
				// The table is flushed once, then each row.
				if i >= 1 {
					if err := s.flush(); err != nil {
						t.Fatal(err)
					}
				}
			}
			got := buf.String()
			if tt.want != "" {
				if got != tt.want {
					t.Errorf("printed\n%s\nwant\n%s", got, tt.want)
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) != len(changes) {
				t.Fatalf("printed %d lines, want one watch event per change:\n%s", len(lines), got)
			}
			for i, line := range lines {
				prefix := fmt.Sprintf(`{"type":%q,"object":{"apiVersion":"v1","kind":"Pod",`, changes[i].typ)
				if !strings.HasPrefix(line, prefix) || !strings.Contains(line, `"name":"`+changes[i].obj.Name+`"`) {
					t.Errorf("line %d = %s, want a watch event %s… of %s", i, line, prefix, changes[i].obj.Name)
				}
			}
		})
	}
}
