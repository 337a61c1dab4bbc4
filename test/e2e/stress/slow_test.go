package stress

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// The slow-consumer scenario.
const (
	// slowPods is how many pods the churn spreads its updates over.
	slowPods = 1000
	// slowNamespace is where hack/seed puts them (prefix stress-slow-, one
	// namespace).
	slowNamespace = "stress-slow-0"
	// queueLimit is the watch printer's queue limit (queueLimit in
	// pkg/plugin/watch.go): beyond it, updates are merged.
	queueLimit = 10000
	// minUpdates is how many updates the test churns at least: three times
	// what the queue can hold unmerged, so that most updates arrive while
	// the queue is full and memory that grew with updates would show.
	minUpdates = 3 * (queueLimit + slowPods)
	// Each `hack/seed churn` round schedules churnRate × churnRound
	// updates, faster than this 2-core machine applies them (about 250 a
	// second), and so takes as long as the apiserver needs. The test runs
	// rounds until it has minUpdates, and fails if that takes more than
	// maxChurn, a no-hang bound.
	churnRate  = 1000
	churnRound = 11 * time.Second
	maxChurn   = 10 * time.Minute
	// recreatePercent of the updates delete a pod and create it again:
	// ADDED and DELETED events, which the queue never merges.
	recreatePercent = 1
	// catchUpTimeout bounds how long the consumer may take, reading at full
	// speed, to see the last event: a no-hang bound, not a speed target.
	catchUpTimeout = 5 * time.Minute
)

// coalescingNotice is what the watch prints on stderr (at most once a
// second) while it merges updates because its output is behind; see
// noticeCoalescing in pkg/plugin/watchprint.go.
var coalescingNotice = regexp.MustCompile(`(?m)^warning: output is behind; (\d+) updates so far were merged into earlier pending updates of the same objects \(each printed update shows the net change\)$`)

// TestSlowConsumerUnderChurn watches 1,000 pods with -o json and as text,
// reads neither output while hack/seed churns tens of thousands of updates,
// then reads slowly, then at full speed. It checks that
//
//   - the watch says on stderr that it merged updates (the coalescing rule
//     of engine.Queue: beyond 10,000 pending events an update merges into a
//     pending event of the same object; adds and deletes are never merged);
//   - its peak memory stays under a bound that grows with the number of
//     objects and the queue limit, not with the number of updates (see
//     memoryBound);
//   - nothing is lost or repeated: every delete and create the churn made is
//     printed exactly once per pod, in order; resourceVersions only grow;
//     merged updates are counted; and the last event printed for each pod
//     is the pod as it is in the cluster.
func TestSlowConsumerUnderChurn(t *testing.T) {
	c := framework.Current(t)
	cs := framework.Current(t).AdminClient()
	ctx := t.Context()
	dir := t.TempDir()

	began := time.Now()
	if out, err := c.Seed("pods", "--count", strconv.Itoa(slowPods), "--namespaces", "1", "--namespace-prefix", "stress-slow-"); err != nil {
		t.Fatalf("seeding pods: %v", err)
	} else {
		t.Log(strings.TrimSpace(out))
	}

	jsonWatch := startPipedWatch(t, "pods", "-n", slowNamespace, "-o", "json")
	textWatch := startPipedWatch(t, "pods", "-n", slowNamespace, "--color", "never")
	watches := []*slowWatch{jsonWatch, textWatch}
	for _, w := range watches {
		w.synced = procStatus(t, w.p.Pid())
	}

	before, err := cs.CoreV1().Pods(slowNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing pods: %v", err)
	}
	if len(before.Items) != slowPods {
		t.Fatalf("namespace %s has %d pods before the churn, want %d", slowNamespace, len(before.Items), slowPods)
	}
	podBytes := podJSONSize(t, before.Items)

	// Churn with both outputs unread: the printers block on their first
	// 64 KiB pipe plus 64 KiB buffer, and everything else queues.
	var total churnTotals
	var stampFiles []string
	churnBegan := time.Now()
	for round := 1; total.updates < minUpdates; round++ {
		if elapsed := time.Since(churnBegan); elapsed > maxChurn {
			t.Fatalf("after %s of churn only %d updates were made, want at least %d", elapsed.Round(time.Second), total.updates, minUpdates)
		}
		stamp := filepath.Join(dir, fmt.Sprintf("churn-%d.stamps", round))
		out, err := c.Seed("churn", "--namespace", slowNamespace, "--rate", strconv.Itoa(churnRate),
			"--duration", churnRound.String(), "--recreate-percent", strconv.Itoa(recreatePercent), "--stamp", stamp)
		if err != nil {
			t.Fatalf("churn round %d: %v", round, err)
		}
		total.add(t, out)
		t.Logf("churn round %d: %s", round, strings.TrimSpace(out))
		stampFiles = append(stampFiles, stamp)
		for _, w := range watches {
			select {
			case <-w.p.Done():
				t.Fatalf("%s exited during the churn: %s", w.name, w.p.Wait())
			default:
			}
		}
	}
	churnTime := time.Since(churnBegan)
	t.Logf("churn: %d updates (%d label, %d annotation, %d status, %d recreate) over %d pods in %s (%.0f/s)",
		total.updates, total.ops["label"], total.ops["annotation"], total.ops["status"], total.ops["recreate"],
		slowPods, churnTime.Round(time.Second), float64(total.updates)/churnTime.Seconds())
	stamps := readStamps(t, stampFiles)

	after, err := cs.CoreV1().Pods(slowNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing pods: %v", err)
	}
	// Queued after everything the churn caused; adds are never merged and
	// the queue is one FIFO, so once it is printed everything before it was.
	sentinel := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "sentinel", Namespace: slowNamespace},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.example.com/sentinel:v1"}}},
	}
	if _, err := cs.CoreV1().Pods(slowNamespace).Create(ctx, sentinel, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the sentinel pod: %v", err)
	}

	// Read slowly for a while, then at full speed until the sentinel.
	for _, w := range watches {
		w.c.setPace(trickle)
	}
	time.Sleep(5 * time.Second)
	catchUpBegan := time.Now()
	for _, w := range watches {
		w.c.setPace(full)
	}
	for _, w := range watches {
		match := func(l string) bool { return strings.HasPrefix(l, "ADDED    pod/sentinel ") }
		if w.json {
			match = func(l string) bool {
				return strings.HasPrefix(l, `{"type":"ADDED"`) && strings.Contains(l, `"name":"sentinel"`)
			}
		}
		if _, err := w.c.waitLine(catchUpTimeout, match); err != nil {
			t.Fatalf("%s: waiting for the sentinel pod: %v; stderr:\n%s\nlast lines:\n%s", w.name, err, w.p.Stderr(), w.c.lastLines(5))
		}
		// The peak is read while the process still runs.
		w.peak = procStatus(t, w.p.Pid())
	}
	catchUp := time.Since(catchUpBegan)

	for _, w := range watches {
		if err := w.p.Interrupt(); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range watches {
		select {
		case <-w.p.Done():
		case <-time.After(eventTimeout):
			t.Fatalf("%s still running %s after SIGINT", w.name, eventTimeout)
		}
		if res := w.p.Wait(); res.ExitCode != 0 {
			t.Errorf("%s after SIGINT: %s\nwant exit code 0", w.name, res)
		}
	}

	want := clusterState(after.Items)
	seededRV := map[string]string{}
	for i := range before.Items {
		seededRV[before.Items[i].Name] = before.Items[i].ResourceVersion
	}
	bound := memoryBound(jsonWatch.synced["VmHWM"], podBytes, stamps, total.updates)
	for _, w := range watches {
		lines, n := w.c.snapshot()
		stderr := w.p.Stderr()
		notices := coalescingNotice.FindAllStringSubmatch(stderr, -1)
		var noticed int64
		if len(notices) == 0 {
			t.Errorf("%s: no coalescing notice on stderr; stderr:\n%s", w.name, stderr)
		} else {
			noticed, _ = strconv.ParseInt(notices[len(notices)-1][1], 10, 64)
		}
		if strings.Contains(stderr, "panic") || strings.Contains(stderr, "error") {
			t.Errorf("%s: stderr has errors:\n%s", w.name, stderr)
		}
		var got printedHistory
		if w.json {
			got = checkJSONHistory(t, lines, want, seededRV, stamps)
		} else {
			got = checkTextHistory(t, lines, want, stamps)
		}
		if got.coalesced < noticed {
			t.Errorf("%s: events account for %d merged updates, but stderr said %d were merged", w.name, got.coalesced, noticed)
		}
		bound := bound
		if !w.json {
			bound = memoryBound(w.synced["VmHWM"], podBytes, stamps, total.updates)
		}
		t.Logf("%s: printed %d lines (%.1f MiB): %d ADDED, %d MODIFIED (%d of them merged), %d DELETED; %d updates merged (stderr said %d); peak RSS %.1f MiB (VmHWM; %.1f MiB when synced), bound %.1f MiB; RssAnon %.1f MiB at the end",
			w.name, len(lines), mib(n), got.added, got.modified, got.merged, got.deleted, got.coalesced, noticed,
			mib(w.peak["VmHWM"]), mib(w.synced["VmHWM"]), mib(bound.total), mib(w.peak["RssAnon"]))
		if w.peak["VmHWM"] > bound.total {
			t.Errorf("%s: peak RSS %.1f MiB, want at most %.1f MiB: %s", w.name, mib(w.peak["VmHWM"]), mib(bound.total), bound)
		}
		if got.coalesced == 0 {
			t.Errorf("%s: no update was merged, though %d updates arrived while nothing was read", w.name, total.updates)
		}
	}
	t.Logf("memory bound: %s", bound)
	t.Logf("times: seed and sync %s, churn %s, catch-up at full speed %s, total %s",
		churnBegan.Sub(began).Round(time.Second), churnTime.Round(time.Second), catchUp.Round(time.Second), time.Since(began).Round(time.Second))
}

// slowWatch is one watch process and the consumer of its output.
type slowWatch struct {
	name   string
	json   bool
	p      *framework.Process
	c      *consumer
	synced map[string]int64 // /proc/PID/status when synced
	peak   map[string]int64 // /proc/PID/status after catching up
}

// startPipedWatch starts `kubectl informer watch ARGS` with its output
// unread, waits until it has synced, and checks that kubectl has exec'd the
// plugin in its own process, so that the pid's memory is the plugin's.
func startPipedWatch(t *testing.T, args ...string) *slowWatch {
	t.Helper()
	p := framework.StartPiped(t, framework.Cmd{Args: append([]string{"informer", "watch"}, args...), Timeout: watchLimit})
	w := &slowWatch{name: "watch " + strings.Join(args, " "), p: p, c: newConsumer(p, paused)}
	w.json = strings.Contains(w.name, "-o json")
	waitFor(t, fmt.Sprintf("synced pods: %d; watching for changes", slowPods), 60*time.Second, p.Stderr, p.Done())
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.Pid()))
	if err != nil {
		t.Fatalf("reading the command line of %s: %v", w.name, err)
	}
	if argv0, _, _ := strings.Cut(string(cmdline), "\x00"); filepath.Base(argv0) != "kubectl-informer" {
		t.Fatalf("process %d runs %q, want kubectl-informer (kubectl execs plugins in its own process)", p.Pid(), argv0)
	}
	return w
}

func procStatus(t *testing.T, pid int) map[string]int64 {
	t.Helper()
	st, err := framework.ProcStatus(pid)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// podJSONSize returns the largest size of the pods as JSON without
// managedFields (the watch keeps only a summary of them).
func podJSONSize(t *testing.T, pods []corev1.Pod) int64 {
	t.Helper()
	var largest int64
	for i := range pods {
		p := pods[i].DeepCopy()
		p.ManagedFields = nil
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("encoding pod %s: %v", p.Name, err)
		}
		largest = max(largest, int64(len(b)))
	}
	return largest
}

// churnTotals adds up the summary lines of hack/seed churn.
type churnTotals struct {
	updates int
	ops     map[string]int
}

var churnSummary = regexp.MustCompile(`seed: churned \d+ pods: (\d+) updates in .*, (\d+) label, (\d+) annotation, (\d+) status, (\d+) recreate, (\d+) errors`)

func (c *churnTotals) add(t *testing.T, out string) {
	t.Helper()
	m := churnSummary.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("hack/seed churn printed no summary line:\n%s", out)
	}
	if c.ops == nil {
		c.ops = map[string]int{}
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	c.updates += n(1)
	c.ops["label"] += n(2)
	c.ops["annotation"] += n(3)
	c.ops["status"] += n(4)
	c.ops["recreate"] += n(5)
	if n(6) != 0 {
		t.Fatalf("hack/seed churn had errors:\n%s", out)
	}
}

// stampLog is what the --stamp files of hack/seed churn say was done.
type stampLog struct {
	// creates and deletes count the recreations of each pod.
	creates, deletes map[string]int
	// patched counts the distinct resourceVersions patches produced (a
	// patch that changes nothing keeps the resourceVersion and makes no
	// event).
	patched int
}

func readStamps(t *testing.T, files []string) stampLog {
	t.Helper()
	log := stampLog{creates: map[string]int{}, deletes: map[string]int{}}
	seen := map[string]bool{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatalf("reading churn stamps: %v", err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// <unix-nanos> <op> <namespace>/<name> <resourceVersion>
			fields := strings.Fields(sc.Text())
			if len(fields) != 4 {
				t.Fatalf("%s: malformed stamp line %q", name, sc.Text())
			}
			_, pod, _ := strings.Cut(fields[2], "/")
			switch fields[1] {
			case "create":
				log.creates[pod]++
			case "delete":
				log.deletes[pod]++
			default:
				if key := pod + " " + fields[3]; !seen[key] {
					seen[key] = true
					log.patched++
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("reading %s: %v", name, err)
		}
	}
	return log
}

func (s stampLog) recreated() int {
	n := 0
	for _, c := range s.creates {
		n += c
	}
	return n
}

// bound is a peak-memory bound and how it was derived.
type bound struct {
	synced, podBytes int64
	versions         int
	total            int64
	// unbounded is what the same measure gives for a queue that held
	// every update.
	updates   int
	unbounded int64
}

func (b bound) String() string {
	return fmt.Sprintf("VmHWM when synced %.1f MiB + %d object versions × %d B (%d × the largest pod's JSON, %d B) × %d (GC headroom) = %.1f MiB; holding all %d updates would be %.1f MiB by the same measure",
		mib(b.synced), b.versions, versionFactor*b.podBytes, versionFactor, b.podBytes, gcFactor, mib(b.total), b.updates, mib(b.unbounded))
}

const (
	// versionFactor bounds how many bytes one object version held by the
	// watch takes per byte of the pod's JSON: a typed corev1.Pod decoded
	// from protobuf (strings, label and annotation maps, the summary of
	// managedFields the watch keeps) and the queue event that holds it.
	// make bench measured about 5.5 KB of anonymous memory per cached pod
	// of 1.2 KB protobuf, GC headroom included, so under 3 × the JSON live;
	// this test's runs measured about 8 KB per held version with GC
	// headroom, 3.5 × the 1.15 KB JSON live. 6 leaves room for a different
	// Go version or allocator behaviour, and still stays well under what
	// holding every update would take (see memoryBound).
	versionFactor = 6
	// gcFactor is the Go collector's headroom: with GOGC=100 the heap may
	// reach twice the live heap before a collection.
	gcFactor = 2
)

// memoryBound returns the peak memory the watch may reach: what it had when
// synced (binary, runtime, client-go, the cache of slowPods pods) plus the
// object versions the event queue can hold. The queue keeps every event
// until queueLimit are pending; beyond that a MODIFIED merges into the
// object's pending event, so at most one more event per object is added,
// plus the ADDED and DELETED events of recreations, which are never merged:
// at most queueLimit + slowPods + 2 × recreations events. Each holds the
// versions before and after it, but an object's consecutive events share
// one (the New of one is the Old of the next) and the last New is the
// cache's own, so the versions held beyond the cache are at most the events
// plus one per object chain: queueLimit + 2 × slowPods + 3 × recreations.
// The bound does not grow with the number of updates: without merging, the
// queue would hold them all.
func memoryBound(synced, podBytes int64, stamps stampLog, updates int) bound {
	versions := queueLimit + 2*slowPods + 3*stamps.recreated()
	perVersion := versionFactor * podBytes * gcFactor
	return bound{
		synced:    synced,
		podBytes:  podBytes,
		versions:  versions,
		total:     synced + int64(versions)*perVersion,
		updates:   updates,
		unbounded: synced + int64(updates)*perVersion,
	}
}

// podState is a pod as the cluster has it, or as the watch last printed it.
type podState struct {
	exists         bool
	uid, rv, churn string
	known          bool // text: churn was printed since the last ADDED
}

func clusterState(pods []corev1.Pod) map[string]podState {
	state := map[string]podState{}
	for i := range pods {
		p := &pods[i]
		state[p.Name] = podState{exists: true, uid: string(p.UID), rv: p.ResourceVersion, churn: p.Labels["churn"], known: true}
	}
	return state
}

// printedHistory sums up what a watch printed about the churned pods.
type printedHistory struct {
	added, modified, deleted int
	// merged counts the printed events that stand for several updates;
	// coalesced counts the updates merged into them.
	merged    int
	coalesced int64
}

// checkJSONHistory checks the events of the -o json watch against the
// cluster and the churn's stamps, and returns what it printed.
func checkJSONHistory(t *testing.T, lines []string, want map[string]podState, seededRV map[string]string, stamps stampLog) printedHistory {
	t.Helper()
	var h printedHistory
	last := map[string]podState{}
	lastRV := map[string]uint64{}
	added, deleted := map[string]int{}, map[string]int{}
	for i, line := range lines {
		ev := framework.DecodeEvent(t, line)
		name := ev.Name()
		if name == "sentinel" {
			continue
		}
		if _, ok := want[name]; !ok {
			t.Errorf("line %d: event for a pod the churn does not own: %s", i+1, ev)
			continue
		}
		st, seen := last[name]
		if !seen {
			st = podState{exists: true} // seeded before the watch started
		}
		rv := framework.NestedString(ev.Object, "metadata", "resourceVersion")
		if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
			if n <= lastRV[name] {
				t.Errorf("line %d: %s has resourceVersion %s, not after the %d printed before: printed twice or out of order", i+1, ev, rv, lastRV[name])
			}
			lastRV[name] = n
		}
		switch ev.Type {
		case "ADDED":
			h.added++
			added[name]++
			if st.exists {
				t.Errorf("line %d: ADDED %s, which exists (no DELETED since its last ADDED)", i+1, name)
			}
			st.exists = true
		case "MODIFIED":
			h.modified++
			if !st.exists {
				t.Errorf("line %d: MODIFIED %s after its DELETED", i+1, name)
			}
		case "DELETED":
			h.deleted++
			deleted[name]++
			if !st.exists {
				t.Errorf("line %d: DELETED %s twice", i+1, name)
			}
			st.exists = false
		default:
			t.Errorf("line %d: event type %q", i+1, ev.Type)
		}
		if ev.FinalStateUnknown {
			t.Errorf("line %d: %s says final state unknown, but the watch never broke", i+1, ev)
		}
		if ev.Coalesced > 0 {
			h.merged++
			h.coalesced += int64(ev.Coalesced)
		}
		st.uid = framework.NestedString(ev.Object, "metadata", "uid")
		st.rv = rv
		st.churn = framework.NestedString(ev.Object, "metadata", "labels", "churn")
		last[name] = st
	}
	checkCounts(t, "watch -o json", added, deleted, stamps)
	mismatches := 0
	for name, w := range want {
		got, seen := last[name]
		if !seen {
			// Churn picks pods at random; one left alone still has the
			// resourceVersion it had before the churn.
			if w.rv != seededRV[name] {
				t.Errorf("pod %s changed (resourceVersion %s, was %s) but the watch printed nothing for it", name, w.rv, seededRV[name])
			}
			continue
		}
		if got.exists != w.exists || got.uid != w.uid || got.rv != w.rv || got.churn != w.churn {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("pod %s: last printed (exists %v, uid %s, resourceVersion %s, label churn %q), cluster has (exists %v, uid %s, resourceVersion %s, label churn %q)",
					name, got.exists, got.uid, got.rv, got.churn, w.exists, w.uid, w.rv, w.churn)
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("watch -o json: %d of %d pods end in a state other than the cluster's", mismatches, len(want))
	}
	checkUpdateCount(t, "watch -o json", h, stamps)
	return h
}

// checkUpdateCount checks that every update the informer saw was printed,
// or merged into a printed event, exactly once: one per distinct
// resourceVersion a patch made, and one per deletion (the apiserver sets
// deletionTimestamp before it removes a pod bound to a node). (An event
// whose merged updates undo each other exactly is not printed; the churn
// writes a new sequence number or timestamp with every update, so that
// would take several status updates of one pod within one second and
// nothing else between them.)
func checkUpdateCount(t *testing.T, name string, h printedHistory, stamps stampLog) {
	t.Helper()
	got, want := int64(h.modified)+h.coalesced, int64(stamps.patched+stamps.recreated())
	t.Logf("%s: %d updates printed or merged; the churn made %d (%d distinct resourceVersions from patches, %d deletions)", name, got, want, stamps.patched, stamps.recreated())
	if got != want {
		t.Errorf("%s printed or merged %d updates, want the %d the churn made (distinct resourceVersions of patches, plus deletions)", name, got, want)
	}
}

// textHeader is the first line of an event in text output.
var textHeader = regexp.MustCompile(`^(ADDED|MODIFIED|DELETED) +pod/(\S+) -n ` + slowNamespace + `(?:  \((.*)\))?$`)

var netOf = regexp.MustCompile(`net of (\d+) updates`)

// churnLabelLine is a text diff line that sets the label churn.
var churnLabelLine = regexp.MustCompile(`^    [~+] metadata\.labels\.churn: (?:"\d+" → )?"(\d+)"$`)

// checkTextHistory checks the text watch: every recreation printed once,
// merged updates marked, no control bytes, and the last printed value of
// the label churn, where the diffs show it, is the cluster's.
func checkTextHistory(t *testing.T, lines []string, want map[string]podState, stamps stampLog) printedHistory {
	t.Helper()
	var h printedHistory
	last := map[string]podState{}
	added, deleted := map[string]int{}, map[string]int{}
	current := ""
	for i, line := range lines {
		if strings.ContainsFunc(line, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Errorf("line %d has control characters: %q", i+1, line)
		}
		if m := textHeader.FindStringSubmatch(line); m != nil {
			current = m[2]
			if current == "sentinel" {
				continue
			}
			st, seen := last[current]
			if !seen {
				st = podState{exists: true}
			}
			switch m[1] {
			case "ADDED":
				h.added++
				added[current]++
				if st.exists {
					t.Errorf("line %d: ADDED %s, which exists (no DELETED since its last ADDED)", i+1, current)
				}
				st = podState{exists: true} // its labels are not printed
			case "MODIFIED":
				h.modified++
			case "DELETED":
				h.deleted++
				deleted[current]++
				if !st.exists {
					t.Errorf("line %d: DELETED %s twice", i+1, current)
				}
				st.exists = false
			}
			if n := netOf.FindStringSubmatch(m[3]); n != nil {
				k, _ := strconv.ParseInt(n[1], 10, 64)
				h.merged++
				h.coalesced += k - 1
			}
			last[current] = st
			continue
		}
		if !strings.HasPrefix(line, "    ") || current == "" {
			t.Errorf("line %d is neither an event nor a diff line under one: %q", i+1, line)
			continue
		}
		if m := churnLabelLine.FindStringSubmatch(line); m != nil && current != "sentinel" {
			st := last[current]
			st.churn, st.known = m[1], true
			last[current] = st
		}
	}
	checkCounts(t, "watch (text)", added, deleted, stamps)
	checkUpdateCount(t, "watch (text)", h, stamps)
	known, mismatches := 0, 0
	for name, w := range want {
		got, seen := last[name]
		if !seen {
			continue
		}
		if !got.exists {
			t.Errorf("pod %s: the text watch printed DELETED last, but the pod exists", name)
			continue
		}
		if !got.known {
			continue
		}
		known++
		if got.churn != w.churn {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("pod %s: last printed label churn %q, cluster has %q", name, got.churn, w.churn)
			}
		}
	}
	// A third of the updates set the label, over 30 per pod: every pod's
	// last label change is in the output unless it was recreated after it.
	if known < len(want)/2 {
		t.Errorf("watch (text): the diffs show the label churn for only %d of %d pods", known, len(want))
	}
	if mismatches > 0 {
		t.Errorf("watch (text): %d of %d pods end with a label other than the cluster's", mismatches, known)
	}
	return h
}

// checkCounts checks that the watch printed one DELETED and one ADDED per
// recreation of each pod.
func checkCounts(t *testing.T, name string, added, deleted map[string]int, stamps stampLog) {
	t.Helper()
	bad := 0
	for pod := range union(added, deleted, stamps.creates, stamps.deletes) {
		if added[pod] != stamps.creates[pod] || deleted[pod] != stamps.deletes[pod] {
			bad++
			if bad <= 10 {
				t.Errorf("%s: pod %s: printed %d ADDED and %d DELETED, the churn created it %d and deleted it %d times",
					name, pod, added[pod], deleted[pod], stamps.creates[pod], stamps.deletes[pod])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d pods with ADDED or DELETED events lost or repeated", name, bad)
	}
}

func union(maps ...map[string]int) map[string]bool {
	keys := map[string]bool{}
	for _, m := range maps {
		for k := range m {
			keys[k] = true
		}
	}
	return keys
}
