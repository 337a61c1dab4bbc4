package warmcache

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// runEnv runs `kubectl informer ARGS` as the admin, with extra environment
// variables.
func (e *env) runEnv(extra []string, args ...string) framework.Result {
	e.t.Helper()
	return framework.Run(e.t, framework.Cmd{
		Args:    append([]string{"informer"}, args...),
		Env:     append(e.environ(), extra...),
		Timeout: 60 * time.Second,
	})
}

// relicsCRD serves fidelity.example.com/v1 Relic deprecated, with a
// warning the API server sends on every request for v1, and v2 (stored).
const relicsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: relics.fidelity.example.com}
spec:
  group: fidelity.example.com
  names: {kind: Relic, plural: relics, singular: relic}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: false
    deprecated: true
    deprecationWarning: "fidelity.example.com/v1 Relic is deprecated; use fidelity.example.com/v2 Relic"
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v2
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

const relics = `
apiVersion: fidelity.example.com/v2
kind: Relic
metadata: {name: amphora, namespace: NAMESPACE}
spec: {age: 2500}
---
apiVersion: fidelity.example.com/v2
kind: Relic
metadata: {name: bust, namespace: NAMESPACE}
spec: {age: 1900}
`

func kubectlApply(t *testing.T, manifest string) {
	t.Helper()
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: manifest}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
}

// TestAPIWarningsAsDirect lists and watches a deprecated CRD version: the
// API server sends a warning with each list and watch. A direct command
// prints it once, as kubectl does; through the cache the same bytes come on
// stderr: when the cache starts the type for the command, and when it
// already holds it.
func TestAPIWarningsAsDirect(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("fid-warn")
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	kubectlApply(t, relicsCRD)
	if r := framework.Run(t, framework.Cmd{Args: []string{"wait", "crd/relics.fidelity.example.com", "--for=condition=Established", "--timeout=1m"}}); r.ExitCode != 0 {
		t.Fatalf("waiting for the CRD: %s", r)
	}
	kubectlApply(t, strings.ReplaceAll(relics, "NAMESPACE", ns))
	e.start("")

	const warning = "Warning: fidelity.example.com/v1 Relic is deprecated; use fidelity.example.com/v2 Relic\n"
	commands := [][]string{
		{"query", "relics.v1.fidelity.example.com", "-n", ns, "-o", "name"},
		{"query", "relics.v1.fidelity.example.com", "-n", ns, "-o", "name"}, // the cache holds it now
		{"query", "relics.v1.fidelity.example.com", "-A", "-o", "custom-columns=NAME:.metadata.name,AGE:.spec.age"},
		{"watch", "relics.v1.fidelity.example.com", "-n", ns, "--initial", "-o", "name", "--max-events", "2"},
		{"query", "relics.v2.fidelity.example.com", "-n", ns, "-o", "name"}, // no warning
	}
	for i, c := range commands {
		name := strings.Join(c, " ")
		direct := e.run("", append(c, "--cache", "off")...)
		warm := e.run("", c...)
		if direct.ExitCode != 0 {
			t.Fatalf("%s --cache off: %s", name, direct)
		}
		wantStderr := warning
		if strings.Contains(name, ".v2.") {
			wantStderr = ""
		}
		if direct.Stderr != wantStderr {
			t.Errorf("%s --cache off: stderr %q, want %q", name, direct.Stderr, wantStderr)
		}
		if warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr || warm.ExitCode != direct.ExitCode {
			t.Errorf("command %d: %s\nthrough the cache: %s\ndirect: %s", i, name, warm, direct)
		}
	}
	// They went through the cache: it holds the v1 relics, for a query and
	// for a watch.
	purposes := map[string]bool{}
	for _, tc := range e.onlyCache().Status.Caches {
		if strings.HasPrefix(tc.Type, "relics") {
			purposes[tc.Purpose] = true
		}
	}
	if !purposes["query"] || !purposes["watch"] {
		t.Errorf("the cache holds relics for %v, want query and watch", purposes)
	}
}

// timestamp is the prefix watch --timestamps gives each event line.
var timestamp = regexp.MustCompile(`^(\d\d):(\d\d):(\d\d)\.\d\d\d `)

// TestTimestampsInClientZone starts the cache in UTC and watches with
// --timestamps from a shell in Asia/Kolkata (UTC+5:30): the times are the
// shell's, as a direct watch prints them.
func TestTimestampsInClientZone(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("fid-tz")
	configMaps(t, ns, 2)
	if res := e.runEnv([]string{"TZ=UTC"}, "cache", "start"); res.ExitCode != 0 {
		t.Fatalf("cache start: %s", res)
	}
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	watch := []string{"watch", "configmaps", "-n", ns, "--initial", "--timestamps", "--max-events", "2"}
	check := func(how string, res framework.Result) string {
		t.Helper()
		now := time.Now().In(kolkata)
		if res.ExitCode != 0 {
			t.Fatalf("%s: %s", how, res)
		}
		var rest []string
		for _, line := range strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n") {
			m := timestamp.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("%s: line without a timestamp: %q", how, line)
			}
			printed, err := time.ParseInLocation("15:04:05", m[1]+":"+m[2]+":"+m[3], kolkata)
			if err != nil {
				t.Fatal(err)
			}
			// Seconds of the day apart, either way round midnight.
			day := 24 * 3600
			got := printed.Hour()*3600 + printed.Minute()*60 + printed.Second()
			want := now.Hour()*3600 + now.Minute()*60 + now.Second()
			if d := (want - got + day) % day; d > 120 {
				t.Errorf("%s: line %q printed at %s, %ds before the time in Asia/Kolkata (%s)", how, line, m[0], d, now.Format("15:04:05"))
			}
			rest = append(rest, line[len(m[0]):])
		}
		return strings.Join(rest, "\n")
	}
	env := []string{"TZ=Asia/Kolkata"}
	direct := check("direct", e.runEnv(env, append(watch, "--cache", "off")...))
	warm := check("through the cache", e.runEnv(env, watch...))
	if warm != direct {
		t.Errorf("events through the cache:\n%s\ndirect:\n%s", warm, direct)
	}
	used := false
	for _, tc := range e.onlyCache().Status.Caches {
		used = used || tc.Type == "configmaps" && tc.Purpose == "watch"
	}
	if !used {
		t.Errorf("the watch did not go through the cache: %+v", e.onlyCache().Status.Caches)
	}
}

// TestLargeAnswerAndClosedStdout: a query's answer of several frames comes
// whole and in order through the cache; into `head -c 100` the command
// dies of SIGPIPE (141) as a direct query does.
func TestLargeAnswerAndClosedStdout(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("fid-pipe")
	cs := framework.Current(t).AdminClient()
	framework.CreateNamespace(t, cs, ns)
	for i := range 40 {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("big-%02d", i), Namespace: ns},
			Data:       map[string]string{"k": strings.Repeat(fmt.Sprintf("%02d", i), 4096)},
		}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.start("")
	q := []string{"query", "configmaps", "-n", ns, "-o", "yaml"}
	direct := e.run("", append(q, "--cache", "off")...)
	warm := e.run("", q...)
	if len(direct.Stdout) < 300<<10 {
		t.Fatalf("direct answer of %d bytes, want more than 300 KiB", len(direct.Stdout))
	}
	if warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr || warm.ExitCode != direct.ExitCode {
		t.Errorf("through the cache: %d bytes, stderr %q, exit %d; direct: %d bytes, stderr %q, exit %d",
			len(warm.Stdout), warm.Stderr, warm.ExitCode, len(direct.Stdout), direct.Stderr, direct.ExitCode)
	}

	pipeline := func(extra string) string {
		t.Helper()
		script := `kubectl informer query configmaps -n ` + ns + ` -o yaml ` + extra + ` | head -c 100 >/dev/null; echo "statuses: ${PIPESTATUS[*]}" >&2`
		res := framework.Run(t, framework.Cmd{
			Binary:     "bash",
			Args:       []string{"-c", script},
			Kubeconfig: framework.NoKubeconfig,
			Env:        append([]string{"KUBECONFIG=" + framework.Current(t).AdminKubeconfig()}, e.environ()...),
			Timeout:    time.Minute,
		})
		return res.Stderr
	}
	directPipe := pipeline("--cache off")
	warmPipe := pipeline("")
	if !strings.Contains(directPipe, "statuses: 141 0") {
		t.Errorf("direct query | head: stderr %q, want it killed by SIGPIPE (statuses: 141 0)", directPipe)
	}
	if warmPipe != directPipe {
		t.Errorf("query | head through the cache: stderr %q, direct %q", warmPipe, directPipe)
	}
	held := false
	for _, tc := range e.onlyCache().Status.Caches {
		held = held || tc.Type == "configmaps" && strings.Join(tc.Namespaces, ",") == ns
	}
	if !held {
		t.Errorf("the queries did not go through the cache: %+v", e.onlyCache().Status.Caches)
	}
}

// TestCredentialsDiffer starts a cache with the admin's kubeconfig plus a
// token (other credentials of the same server, user and context, as after a
// rotation): the admin's own commands do not use it, silently, and cache
// status says why.
func TestCredentialsDiffer(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("fid-rotated")
	configMaps(t, ns, 2)
	admin := framework.Current(t).AdminKubeconfig()
	cfg, err := clientcmd.LoadFromFile(admin)
	if err != nil {
		t.Fatal(err)
	}
	for _, user := range cfg.AuthInfos {
		user.Token = "an-old-token"
	}
	rotated := filepath.Join(t.TempDir(), "rotated.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, rotated); err != nil {
		t.Fatal(err)
	}
	e.start(rotated)

	type entry struct {
		Socket string `json:"socket"`
		Shell  string `json:"shell"`
	}
	shellOf := func(kubeconfig string) string {
		t.Helper()
		var st []entry
		res := e.mustRun(kubeconfig, "cache", "status", "-o", "json")
		if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil || len(st) != 1 {
			t.Fatalf("cache status -o json: %v, %d entries\n%s", err, len(st), res)
		}
		return st[0].Shell
	}
	if got := shellOf(""); got != "not used by this shell: credentials differ" {
		t.Errorf("cache status of the admin: shell %q, want the credentials said to differ", got)
	}
	if got := shellOf(rotated); got != "used by this shell" {
		t.Errorf("cache status with the kubeconfig the cache was started with: shell %q, want used", got)
	}
	if table := e.mustRun("", "cache", "status").Stdout; !strings.Contains(table, "SHELL") || !strings.Contains(table, "credentials differ") {
		t.Errorf("cache status table does not say the credentials differ:\n%s", table)
	}
	// The admin's query answers directly, without a word about the cache.
	q := []string{"query", "configmaps", "-n", ns, "-o", "name"}
	warm := e.mustRun("", q...)
	direct := e.mustRun("", append(q, "--cache", "off")...)
	if warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr {
		t.Errorf("query beside a cache of other credentials: %s\ndirect: %s", warm, direct)
	}
	for _, tc := range e.onlyCache().Status.Caches {
		if tc.Type == "configmaps" {
			t.Errorf("the admin's query went to the cache of other credentials: %+v", tc)
		}
	}
}
