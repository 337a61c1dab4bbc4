package warmcache

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// podLists counts the requests that list pods of namespace ns the API
// server has audited: LISTs and watches (an informer's streaming list is a
// watch). A query the warm cache answers itself sends none.
func podLists(t *testing.T, ns string) int {
	t.Helper()
	events, err := framework.Current(t).AuditLog()
	if err != nil {
		t.Fatalf("reading the audit log: %v", err)
	}
	n := 0
	for _, ev := range events {
		if ev.Stage == "RequestReceived" && (ev.Verb == "list" || ev.Verb == "watch") && ev.ObjectRef.Resource == "pods" && ev.ObjectRef.Namespace == ns {
			n++
		}
	}
	return n
}

// TestIndexerQueriesAnsweredWarm runs --indexer queries through the cache:
// lookups, group-bys, columns and --sort-by of JSONPath and CEL indexes,
// two commands that define one name differently, and one expression under
// two names. The cache answers every one itself (no LIST of pods reaches
// the API server after the first; it holds one informer of pods with one
// index per distinct definition), and each answer is the direct one, byte
// for byte, stderr included.
func TestIndexerQueriesAnsweredWarm(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-indexer")
	createPods(t, ns, 6) // p-0, p-2, p-4: app=x; p-1, p-3, p-5: app=y
	e.start("")
	image := "--indexer=img={.spec.containers[*].image}"
	app := "--indexer=img={.metadata.labels.app}" // the same name, another definition
	queries := [][]string{
		{"query", "pods", "-n", ns, image, "--index", "img=registry.k8s.io/pause:3.10", "-o", "name"},
		{"query", "pods", "-n", ns, app, "--index", "img=x", "-o", "name"},
		{"query", "pods", "-n", ns, image, "--group-by", "img"},
		{"query", "pods", "-n", ns, app, "--group-by", "img"},
		{"query", "pods", "-n", ns, "--indexer", "app-of=metadata.labels.app", "--group-by", "app-of"},
		// The default table prints the index's values (AGE aside, below).
		{"query", "pods", "-n", ns, app, "--index", "img!=x"},
		{"query", "pods", "-n", ns, app, "--index", "img", "--sort-by", "img", "-o", "name"},
		{"query", "pods", "-n", ns, "--indexer", `half=object.metadata.labels.app == "x" ? "even" : "odd"`, "--group-by", "half,label:app"},
		{"query", "pods", "-n", ns, "--indexer", `half=object.metadata.labels.app == "x" ? "even" : "odd"`, "--index", "half=odd", "-o", "name"},
		// Fails on p-3: the warning is the command's own.
		{"query", "pods", "-n", ns, "--indexer", `tier=object.metadata.name == "p-3" ? object.metadata.labels.tier : "none"`, "--group-by", "tier"},
	}
	first := e.mustRun("", queries[0]...)
	lists := podLists(t, ns)
	warm := []framework.Result{first}
	for _, q := range queries[1:] {
		warm = append(warm, e.run("", q...))
	}
	if got := podLists(t, ns); got != lists {
		t.Errorf("the queries through the cache sent %d LISTs of pods, want none: the cache did not answer them", got-lists)
	}
	for i, name := range []string{"image", "app"} {
		lines := strings.Count(warm[i].Stdout, "\n")
		if want := []int{6, 3}[i]; lines != want {
			t.Errorf("--indexer img (%s) --index img=…: %d pods, want %d: %s", name, lines, want, warm[i])
		}
	}

	c := e.onlyCache()
	var pods []string
	var indexes []string
	for _, tc := range c.Status.Caches {
		if tc.Type == "pods" {
			pods = append(pods, strings.Join(tc.Namespaces, ","))
			indexes = tc.Indexes
		}
	}
	if !slices.Equal(pods, []string{ns}) {
		t.Errorf("the cache holds informers of pods of namespaces %q, want one, of %s", pods, ns)
	}
	wantIndexes := []string{
		`custom:cel:object.metadata.labels.app == "x" ? "even" : "odd"`,
		`custom:cel:object.metadata.name == "p-3" ? object.metadata.labels.tier : "none"`,
		"custom:jsonpath:{.metadata.labels.app}",
		"custom:jsonpath:{.spec.containers[*].image}",
	}
	for _, want := range wantIndexes {
		if !slices.Contains(indexes, want) {
			t.Errorf("the cache's informer of pods has indexes %q, want %q among them", indexes, want)
		}
	}
	if n := len(indexes); n > len(wantIndexes)+2 { // and label:app, and node (every pods entry has it)
		t.Errorf("the cache's informer of pods has %d indexes, want one per definition: %q", n, indexes)
	}

	for i, q := range queries {
		direct := e.run("", append(q, "--cache", "off")...)
		if slices.Contains(q, "img!=x") {
			// The pods' AGE moves on between the two runs.
			warm[i].Stdout, direct.Stdout = withoutAge(warm[i].Stdout), withoutAge(direct.Stdout)
		}
		if warm[i].Stdout != direct.Stdout || warm[i].Stderr != direct.Stderr || warm[i].ExitCode != direct.ExitCode {
			t.Errorf("%s\nthrough the cache: %s\ndirect: %s", strings.Join(q, " "), warm[i], direct)
		}
	}
	if got := podLists(t, ns); got <= lists {
		t.Errorf("the direct queries sent no LIST of pods: the audit log does not show them")
	}
}

// ageColumn matches the AGE column of a pod table and the spaces around it.
var ageColumn = regexp.MustCompile(` +(AGE|[0-9]+[smh]) +`)

// withoutAge returns table with its AGE column blanked.
func withoutAge(table string) string { return ageColumn.ReplaceAllString(table, " AGE ") }

// TestIndexerWatchesAnsweredWarm runs two watches through the cache that
// define --indexer img differently and filter on it with --where, next to
// the same watches with --cache off: the second warm watch reaches the API
// server no more, and each prints what its direct twin prints, event for
// event, as pods move in and out of its --where.
func TestIndexerWatchesAnsweredWarm(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-indexerw")
	createPods(t, ns, 4) // p-0, p-2: app=x; p-1, p-3: app=y
	e.start("")
	byApp := []string{"pods", "-n", ns, "--indexer", "img={.metadata.labels.app}", "--where", "img=x", "--initial"}
	byName := []string{"pods", "-n", ns, "--indexer", `img=object.metadata.name.endsWith("-1") ? "one" : "other"`, "--where", "img=one", "--initial"}
	warmByApp := e.startWatch(byApp...)
	lists := podLists(t, ns)
	warmByName := e.startWatch(byName...)
	if got := podLists(t, ns); got != lists {
		t.Errorf("the second watch through the cache sent %d requests listing pods, want none", got-lists)
	}
	directByApp := e.startWatch(append(byApp, "--cache", "off")...)
	directByName := e.startWatch(append(byName, "--cache", "off")...)

	patchPod(t, ns, "p-1", `{"metadata":{"labels":{"app":"x"}}}`) // into img=x
	patchPod(t, ns, "p-0", `{"metadata":{"labels":{"app":"y"}}}`) // out of img=x
	patchPod(t, ns, "p-1", `{"metadata":{"annotations":{"note":"last"}}}`)
	for _, pair := range []struct {
		name         string
		warm, direct *framework.Process
	}{
		{"--indexer img by app", warmByApp, directByApp},
		{"--indexer img by name", warmByName, directByName},
	} {
		last := func(l string) bool { return strings.Contains(l, `{"note":"last"}`) }
		for _, p := range []*framework.Process{pair.warm, pair.direct} {
			if _, err := p.WaitForLine(30*time.Second, last); err != nil {
				t.Fatalf("%s: no annotation change of p-1: %v\nstdout:\n%s\nstderr:\n%s", pair.name, err, p.Stdout(), p.Stderr())
			}
		}
		if pair.warm.Stdout() != pair.direct.Stdout() {
			t.Errorf("%s: the watch through the cache printed\n%s\nthe direct watch\n%s", pair.name, pair.warm.Stdout(), pair.direct.Stdout())
		}
	}
	for _, p := range []*framework.Process{warmByApp, warmByName, directByApp, directByName} {
		if err := p.Interrupt(); err != nil {
			t.Fatal(err)
		}
		if res := p.Wait(); res.ExitCode != 0 {
			t.Errorf("interrupted watch: %s", res)
		}
	}
}
