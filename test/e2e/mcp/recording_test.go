package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// recordedSecretValues are the values the recorded Secret held; no
// result may carry them.
var recordedSecretValues = []string{"rec-s3cr3t-v1", "rec-s3cr3t-v2", "rec-s3cr3t-extra"}

// recordedChanges records, in namespace m-rec, Deployment web created
// with 2 replicas, scaled to 4, its image set to v2, then deleted, and
// Secret creds whose value changes and which gains a key. It returns the
// recording, and an instant between the scale and the image change with
// what kubectl get said of the Deployment then.
func recordedChanges(t *testing.T, c *framework.Cluster) (file string, between time.Time, created time.Time) {
	t.Helper()
	recordingOnce.Do(func() { recorded.file, recorded.between, recorded.created = recordChanges(t, c) })
	if recorded.file == "" {
		t.Fatal("the recording failed in an earlier test")
	}
	return recorded.file, recorded.between, recorded.created
}

var (
	recordingOnce sync.Once
	recorded      struct {
		file             string
		between, created time.Time
	}
)

// recordChanges makes the recording recordedChanges returns, in a
// directory that outlives the test that makes it.
func recordChanges(t *testing.T, c *framework.Cluster) (file string, between time.Time, created time.Time) {
	t.Helper()
	const ns = "m-rec"
	framework.CreateNamespace(t, c.AdminClient(), ns)
	// Beside the cluster, in the run's directory, which the framework removes.
	dir, err := os.MkdirTemp(filepath.Dir(c.Dir), "recording-")
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "web.rec")
	rec := framework.Start(t, framework.Cmd{Args: []string{"informer", "record", "deployments.apps,secrets", "-n", ns, "--to", file}, Timeout: 5 * time.Minute})
	err = wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return strings.Contains(rec.Stderr(), "; recording to "), nil
	})
	if err != nil {
		t.Fatalf("waiting for the recorder: %v\nstderr:\n%s", err, rec.Stderr())
	}
	run := func(args ...string) string {
		t.Helper()
		r := framework.Kubectl(t, t.Context(), args...)
		if r.ExitCode != 0 {
			t.Fatalf("kubectl %v: %s", args, r)
		}
		return r.Stdout
	}
	run("create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=2")
	run("create", "secret", "generic", "creds", "-n", ns, "--from-literal=password="+recordedSecretValues[0])
	run("scale", "deployment/web", "-n", ns, "--replicas=4")
	stamp := run("get", "deployment/web", "-n", ns, "-o", "jsonpath={.metadata.creationTimestamp}")
	if created, err = time.Parse(time.RFC3339, stamp); err != nil {
		t.Fatalf("creationTimestamp %q: %v", stamp, err)
	}
	time.Sleep(1500 * time.Millisecond)
	between = time.Now()
	time.Sleep(1500 * time.Millisecond)
	run("set", "image", "deployment/web", "-n", ns, "web=registry.example.com/web:v2")
	patch := fmt.Sprintf(`{"stringData":{"password":%q,"extra":%q}}`, recordedSecretValues[1], recordedSecretValues[2])
	run("patch", "secret", "creds", "-n", ns, "-p", patch)
	run("delete", "deployment/web", "-n", ns)
	time.Sleep(time.Second)
	if err := rec.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if r := rec.Wait(); r.ExitCode != 0 {
		t.Fatalf("the recorder did not exit 0 on SIGINT: %s", r)
	}
	return file, between, created
}

// historyOutput is the history tool's structured content.
type historyOutput struct {
	Object string `json:"object"`
	Events []struct {
		Time     string   `json:"time"`
		Type     string   `json:"type"`
		Managers []string `json:"managers"`
		Changes  []struct {
			Op       string `json:"op"`
			Path     string `json:"path"`
			Old      any    `json:"old"`
			New      any    `json:"new"`
			Redacted bool   `json:"redacted"`
		} `json:"changes"`
	} `json:"events"`
	TotalEvents int `json:"totalEvents"`
}

// TestRecordingHistoryAndAt asks a server started with a recording for a
// Deployment's and a Secret's history and for the Deployment as it was
// between two changes.
func TestRecordingHistoryAndAt(t *testing.T) {
	c := seed(t)
	file, between, created := recordedChanges(t, c)
	cs := mcpServer(t, c.AdminKubeconfig(), "--recording", file)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "history") || !slices.Contains(names, "at") {
		t.Fatalf("a server with a recording lists %v, want history and at among them", names)
	}

	res, structured := call(t, cs, "history", map[string]any{"object": "deployment/web", "namespace": "m-rec"})
	var h historyOutput
	if err := json.Unmarshal([]byte(structured), &h); err != nil || res.IsError {
		t.Fatalf("history deployment/web = %s %s (%v)", structured, textOf(res), err)
	}
	var types []string
	found := map[string]bool{}
	for _, e := range h.Events {
		types = append(types, e.Type)
		for _, ch := range e.Changes {
			switch {
			case ch.Path == "spec.replicas" && fmt.Sprint(ch.Old) == "2" && fmt.Sprint(ch.New) == "4" && slices.Contains(e.Managers, "kubectl/Update/scale"):
				found["scale"] = true
			case ch.Path == "spec.template.spec.containers[name=web].image" && ch.New == "registry.example.com/web:v2" && slices.Contains(e.Managers, "kubectl-set/Update"):
				found["image"] = true
			}
		}
	}
	if len(types) < 4 || types[0] != "ADDED" || types[len(types)-1] != "DELETED" || !found["scale"] || !found["image"] {
		t.Errorf("history deployment/web = %v, found %v; want ADDED first, DELETED last, the scale 2→4 by kubectl/Update/scale and the image change by kubectl-set/Update:\n%s", types, found, textOf(res))
	}

	res, structured = call(t, cs, "history", map[string]any{"object": "secret/creds", "namespace": "m-rec"})
	if res.IsError || !strings.Contains(structured, `"data.extra"`) {
		t.Errorf("history secret/creds = %s %s, want the key data.extra added (without its value)", structured, textOf(res))
	}
	for _, v := range recordedSecretValues {
		for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
			if strings.Contains(structured+textOf(res), form) {
				t.Errorf("history secret/creds returns the Secret's value %q", form)
			}
		}
	}

	at := between.UTC().Format(time.RFC3339Nano)
	res, structured = call(t, cs, "at", map[string]any{"at": at, "types": "deployments.apps", "namespace": "m-rec",
		"columns": "NAME:.metadata.name,REPLICAS:.spec.replicas,IMAGE:.spec.template.spec.containers[0].image"})
	var out queryOutput
	if err := json.Unmarshal([]byte(structured), &out); err != nil || res.IsError || len(out.Contexts) != 1 || len(out.Contexts[0].Tables) != 1 {
		t.Fatalf("at %s = %s %s (%v), want one table", at, structured, textOf(res), err)
	}
	if rows := out.Contexts[0].Tables[0].Rows; fmt.Sprint(rows) != "[[web 4 registry.example.com/web:v1]]" {
		t.Errorf("at %s, deployments = %v, want web with 4 replicas of web:v1 (after the scale, before the image change)", at, rows)
	}
	res, structured = call(t, cs, "at", map[string]any{"at": at, "types": "deployments.apps", "namespace": "m-rec"})
	out = queryOutput{}
	if err := json.Unmarshal([]byte(structured), &out); err != nil || res.IsError || len(out.Contexts[0].Tables) != 1 {
		t.Fatalf("at %s = %s %s (%v)", at, structured, textOf(res), err)
	}
	table := out.Contexts[0].Tables[0]
	age := slices.Index(table.Header, "AGE")
	if want := duration.HumanDuration(between.Sub(created)); age < 0 || len(table.Rows) != 1 || table.Rows[0][age] != want {
		t.Errorf("at %s, the table = %v %v, want web's AGE %s (counted from the instant asked)", at, table.Header, table.Rows, want)
	}
	res, structured = call(t, cs, "at", map[string]any{"types": "deployments.apps", "namespace": "m-rec"})
	out = queryOutput{}
	if err := json.Unmarshal([]byte(structured), &out); err != nil || res.IsError || len(out.Contexts[0].Tables) != 0 {
		t.Errorf("at the recording's end, deployments = %s %s, want none (web was deleted)", structured, textOf(res))
	}

	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"history", map[string]any{"object": "deployment/nope", "namespace": "m-rec"}, "NotFound"},
		{"history", map[string]any{"object": "deployment/web", "recording": "other.rec"}, "other.rec"},
		{"at", map[string]any{"at": "2000-01-01T00:00:00Z", "types": "deployments.apps"}, "before the recording's start"},
		{"at", map[string]any{"at": "yesterday", "types": "deployments.apps"}, "at \"yesterday\""},
	} {
		res, structured := call(t, cs, tt.tool, tt.args)
		if !res.IsError || !strings.Contains(textOf(res), tt.want) {
			t.Errorf("%s %v = %s %s, want a tool error naming %q", tt.tool, tt.args, structured, textOf(res), tt.want)
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the recording is gone after the calls: %v", err)
	}
}

// TestNoRecordingNoHistoryTools checks that a server without a recording
// offers neither history nor at.
func TestNoRecordingNoHistoryTools(t *testing.T) {
	c := seed(t)
	tools, err := mcpServer(t, c.AdminKubeconfig()).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "history" || tool.Name == "at" {
			t.Errorf("a server without --recording offers the %s tool", tool.Name)
		}
	}
}

// TestInspectorRecording asks the history and at tools through the
// Inspector's CLI.
func TestInspectorRecording(t *testing.T) {
	c := seed(t)
	file, between, _ := recordedChanges(t, c)
	home := newHome(t)
	for _, tt := range []struct {
		tool string
		args []string
		want string
	}{
		{"history", []string{"object=deployment/web", "namespace=m-rec", `only=["spec.replicas"]`}, `"kubectl/Update/scale"`},
		{"at", []string{"at=" + between.UTC().Format(time.RFC3339Nano), "types=deployments.apps", "namespace=m-rec", "columns=NAME:.metadata.name,REPLICAS:.spec.replicas"}, `"4"`},
	} {
		out := inspector(t, home, c.AdminKubeconfig(), append([]string{"--recording", file, "--method", "tools/call", "--tool-name", tt.tool, "--tool-arg"}, tt.args...)...)
		var res struct {
			IsError bool `json:"isError"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.IsError || !strings.Contains(out, `"structuredContent"`) || !strings.Contains(out, tt.want) {
			t.Errorf("tools/call %s %v through the Inspector = %s (%v), want a structured result holding %s", tt.tool, tt.args, out, err, tt.want)
		}
	}
}
