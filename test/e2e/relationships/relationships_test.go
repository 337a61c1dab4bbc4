package relationships

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// statefulSet is a StatefulSet of two pods, applied through kubectl.
const statefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  replicas: 2
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: registry.example.com/db:v1
`

// setUpWorkloads makes, through the real kubectl, two Deployments, a
// StatefulSet and a CronJob with a Job created from it, in ns, and waits for
// the controllers.
func setUpWorkloads(t *testing.T, ns string) {
	t.Helper()
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=3")
	kubectl(t, "create", "deployment", "api", "-n", ns, "--image=registry.example.com/api:v1", "--replicas=2")
	kubectl(t, "create", "cronjob", "backup", "-n", ns, "--image=registry.example.com/backup:v1", "--schedule=0 0 1 1 *", "--", "true")
	kubectl(t, "create", "job", "backup-now", "-n", ns, "--from=cronjob/backup")
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-n", ns, "-f", "-"}, Stdin: statefulSet}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply of the StatefulSet: %s", r)
	}
	timeout := "--timeout=" + rolloutTimeout.String()
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, timeout)
	kubectl(t, "rollout", "status", "deployment/api", "-n", ns, timeout)
	kubectl(t, "wait", "--for=condition=complete", "job/backup-now", "-n", ns, timeout)
	kubectl(t, "rollout", "status", "statefulset/db", "-n", ns, timeout)
}

// TestOwnerRootAndTree proves owner-root and tree against the ownership
// computed from kubectl get -o json.
func TestOwnerRootAndTree(t *testing.T) {
	// A namespace of its own per run, so the test can run again on a kept
	// cluster (KUBECTL_INFORMER_E2E_CLUSTER).
	ns := fmt.Sprintf("rel-%d", time.Now().UnixNano()%1_000_000)
	setUpWorkloads(t, ns)
	g := readGraph(t, ns, "deployments,replicasets,statefulsets,controllerrevisions,pods,jobs,cronjobs")
	byRoot := g.podsByRoot()
	if len(byRoot["Deployment/web"]) != 3 || len(byRoot["CronJob/backup"]) != 1 || len(byRoot["StatefulSet/db"]) != 2 {
		t.Fatalf("the computed roots are not what the controllers should have made: %v", byRoot)
	}

	t.Run("query owner-root", func(t *testing.T) {
		for _, root := range []string{"Deployment/web", "Deployment/api", "CronJob/backup", "StatefulSet/db"} {
			r := mustInformer(t, "query", "pods", "-n", ns, "--index", "owner-root="+root, "-o", "name")
			if got := lines(r.Stdout); !slices.Equal(got, byRoot[root]) {
				t.Errorf("query pods --index owner-root=%s -o name = %q, want %q", root, got, byRoot[root])
			}
			t.Logf("query pods --index owner-root=%s: %s", root, r.Duration.Round(time.Millisecond))
		}
		r := mustInformer(t, "query", "pods", "-n", ns, "-o", "name")
		t.Logf("plain query pods -o name: %s", r.Duration.Round(time.Millisecond))
	})

	t.Run("group-by owner-root", func(t *testing.T) {
		r := mustInformer(t, "query", "pods", "-n", ns, "--group-by", "owner-root", "--no-headers")
		got := map[string]int{}
		for _, l := range lines(r.Stdout) {
			f := strings.Fields(l)
			if len(f) != 2 {
				t.Fatalf("group-by line %q is not VALUE COUNT", l)
			}
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatalf("group-by line %q: %v", l, err)
			}
			got[f[0]] = n
		}
		want := map[string]int{}
		for root, pods := range byRoot {
			want[root] = len(pods)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("query pods --group-by owner-root = %v, want %v", got, want)
		}
	})

	t.Run("tree -o name", func(t *testing.T) {
		for _, root := range [][2]string{{"Deployment", "web"}, {"CronJob", "backup"}, {"StatefulSet", "db"}} {
			var want []treeLine
			g.down(g.find(t, root[0], root[1]), 0, &want)
			r := mustInformer(t, "tree", strings.ToLower(root[0])+"/"+root[1], "-n", ns, "-o", "name")
			if got := lines(r.Stdout); !slices.Equal(got, names(want)) {
				t.Errorf("tree %s/%s -o name = %q, want %q", root[0], root[1], got, names(want))
			}
		}
	})

	t.Run("tree text", func(t *testing.T) {
		var want []treeLine
		g.down(g.find(t, "Deployment", "web"), 0, &want)
		r := mustInformer(t, "tree", "deployment/web", "-n", ns)
		t.Logf("tree deployment/web: %s\n%s", r.Duration.Round(time.Millisecond), r.Stdout)
		got := parseTree(t, r.Stdout)
		if fmt.Sprint(got) != fmt.Sprint(kindNames(want)) {
			t.Errorf("tree deployment/web =\n%s\nwant the lines (depth, KIND/NAME) %v", r.Stdout, kindNames(want))
		}
		for _, l := range lines(r.Stdout)[1:] {
			if strings.Contains(l, "Pod/") && !strings.Contains(l, "Running") {
				t.Errorf("tree line %q: a pod of a rolled-out Deployment should be Running", l)
			}
		}
	})

	t.Run("several roots", func(t *testing.T) {
		var want []treeLine
		g.down(g.find(t, "Deployment", "web"), 0, &want)
		g.down(g.find(t, "Deployment", "api"), 0, &want)
		r := mustInformer(t, "tree", "deploy/web", "deploy/api", "-n", ns, "-o", "name")
		if got := lines(r.Stdout); !slices.Equal(got, names(want)) {
			t.Errorf("tree deploy/web deploy/api -o name = %q, want %q", got, names(want))
		}
		// -l picks the roots; they come sorted by name, as kubectl get lists them.
		var api []treeLine
		g.down(g.find(t, "Deployment", "api"), 0, &api)
		r = mustInformer(t, "tree", "deploy", "-l", "app in (api,web)", "-n", ns, "-o", "name")
		if got, want := lines(r.Stdout), append(names(api), names(want[:len(want)-len(api)])...); !slices.Equal(got, want) {
			t.Errorf("tree deploy -l 'app in (api,web)' -o name = %q, want %q", got, want)
		}
	})

	t.Run("up", func(t *testing.T) {
		pod := strings.TrimPrefix(byRoot["Deployment/web"][0], "pod/")
		p := g.find(t, "Pod", pod)
		rs := g.byUID[p.Metadata.OwnerReferences[0].UID]
		want := []string{"deployment.apps/web", rs.resourceName(), "pod/" + pod}
		r := mustInformer(t, "tree", "pod/"+pod, "-n", ns, "--up", "-o", "name")
		if got := lines(r.Stdout); !slices.Equal(got, want) {
			t.Errorf("tree pod/%s --up -o name = %q, want %q", pod, got, want)
		}
		r = mustInformer(t, "tree", "pod/"+pod, "-n", ns, "--up")
		wantLines := []string{"0 Deployment/web", "1 " + rs.kindName(), "2 Pod/" + pod}
		if got := parseTree(t, r.Stdout); fmt.Sprint(got) != fmt.Sprint(wantLines) {
			t.Errorf("tree pod/%s --up =\n%s\nwant %v", pod, r.Stdout, wantLines)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"tree", "deployment/nope", "-n", ns}, `deployments.apps "nope" not found`},
			{[]string{"tree", "nope/x", "-n", ns}, `the server doesn't have a resource type "nope"`},
			{[]string{"tree", "deployment/web", "-n", ns, "--types", "nope"}, `--types: the server doesn't have a resource type "nope"`},
			{[]string{"tree", "-n", ns}, "you must specify a root"},
			{[]string{"query", "pods", "-n", ns, "--index", "owner-root"}, ""},
		} {
			r := informer(t, "", tt.args...)
			if tt.want == "" {
				// owner-root without a value selects pods that have a root: not an error.
				if r.ExitCode != 0 {
					t.Errorf("kubectl informer %s: %s", strings.Join(tt.args, " "), r)
				}
				continue
			}
			if r.ExitCode != 1 || !strings.Contains(r.Stderr, tt.want) {
				t.Errorf("kubectl informer %s = exit %d, stderr %q; want exit 1 and %q", strings.Join(tt.args, " "), r.ExitCode, r.Stderr, tt.want)
			}
		}
	})
}

// TestOwnerRootWithoutReplicaSets runs owner-root and tree --up as the
// viewer, who may read pods in team-a and nothing else: the answer stops at
// the ReplicaSets, and stderr says they cannot be read.
func TestOwnerRootWithoutReplicaSets(t *testing.T) {
	c := framework.Current(t)
	const ns = "team-a"
	framework.CreateNamespace(t, c.AdminClient(), ns)
	// The viewer may read team-a only: clear what an earlier run left there.
	kubectl(t, "delete", "deployment", "shop", "-n", ns, "--ignore-not-found", "--cascade=foreground", "--wait", "--timeout="+rolloutTimeout.String())
	kubectl(t, "create", "deployment", "shop", "-n", ns, "--image=registry.example.com/shop:v1", "--replicas=2")
	kubectl(t, "rollout", "status", "deployment/shop", "-n", ns, "--timeout="+rolloutTimeout.String())
	g := readGraph(t, ns, "replicasets,pods")
	var pods []string
	rsName := ""
	for _, o := range g.byUID {
		if o.Kind == "Pod" && strings.HasPrefix(o.Metadata.Name, "shop-") {
			pods = append(pods, "pod/"+o.Metadata.Name)
			rsName = o.Metadata.OwnerReferences[0].Name
		}
	}
	sort.Strings(pods)

	r := informer(t, c.ViewerKubeconfig(), "query", "pods", "-n", ns, "--index", "owner-root=ReplicaSet/"+rsName, "-o", "name")
	if r.ExitCode != 0 {
		t.Fatalf("query as the viewer: %s", r)
	}
	if got := lines(r.Stdout); !slices.Equal(got, pods) {
		t.Errorf("query pods --index owner-root=ReplicaSet/%s as the viewer = %q, want %q", rsName, got, pods)
	}
	for _, want := range []string{"replicasets.apps", "forbidden"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr of the viewer's query = %q, want it to name %q", r.Stderr, want)
		}
	}

	r = informer(t, c.ViewerKubeconfig(), "tree", strings.TrimSpace(pods[0]), "-n", ns, "--up", "-o", "name")
	if r.ExitCode != 0 {
		t.Fatalf("tree --up as the viewer: %s", r)
	}
	if got, want := lines(r.Stdout), []string{"replicaset/" + rsName, pods[0]}; !slices.Equal(got, want) {
		t.Errorf("tree %s --up -o name as the viewer = %q, want %q", pods[0], got, want)
	}
	if !strings.Contains(r.Stderr, "replicasets.apps") {
		t.Errorf("stderr of the viewer's tree --up = %q, want it to name replicasets.apps", r.Stderr)
	}
}

func names(tl []treeLine) []string {
	out := make([]string, len(tl))
	for i, l := range tl {
		out[i] = l.name
	}
	return out
}

func kindNames(tl []treeLine) []string {
	out := make([]string, len(tl))
	for i, l := range tl {
		out[i] = fmt.Sprintf("%d %s", l.depth, l.kindName)
	}
	return out
}

// parseTree reads the text tree: for each line after the header, the depth
// its prefix draws ("├─" and "└─" after two columns per level) and the
// KIND/NAME after it, as "DEPTH KIND/NAME".
func parseTree(t *testing.T, out string) []string {
	t.Helper()
	ls := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(ls) == 0 || !strings.HasPrefix(ls[0], "NAMESPACE") {
		t.Fatalf("tree output has no header:\n%s", out)
	}
	col := len([]rune(ls[0][:strings.Index(ls[0], "NAME ")]))
	var got []string
	for _, l := range ls[1:] {
		cell := []rune(l)[col:]
		prefix := 0
		for prefix < len(cell) && strings.ContainsRune("│├└─ ", cell[prefix]) {
			prefix++
		}
		name := strings.Fields(string(cell[prefix:]))[0]
		got = append(got, fmt.Sprintf("%d %s", prefix/2, name))
	}
	return got
}
