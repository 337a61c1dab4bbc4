package plugin

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/history"
	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// historyStart is when the test recordings start.
var historyStart = time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)

// recordedDeployment is a Deployment as a recording holds it: its image
// and replicas, and its managedFields, kubectl-create owning everything,
// kubectl-set the image once set, kubectl-scale the replicas once scaled.
func recordedDeployment(uid, image string, replicas int64, rv string, managers ...string) *unstructured.Unstructured {
	fields := map[string]string{
		"kubectl-create": `{"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`,
		"kubectl-set":    `{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{"f:image":{}}}}}}}`,
		"kubectl-scale":  `{"f:spec":{"f:replicas":{}}}`,
	}
	var managed []interface{}
	for _, m := range managers {
		var f map[string]interface{}
		if err := json.Unmarshal([]byte(fields[m]), &f); err != nil {
			panic(err)
		}
		entry := map[string]interface{}{"manager": m, "operation": "Update", "apiVersion": "apps/v1", "time": "2026-11-26T01:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": f}
		if m == "kubectl-scale" {
			entry["subresource"] = "scale"
		}
		managed = append(managed, entry)
	}
	md := map[string]interface{}{"namespace": "shop", "name": "web", "uid": uid, "resourceVersion": rv}
	if managed != nil {
		md["managedFields"] = managed
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   md,
		"spec": map[string]interface{}{
			"replicas": replicas,
			"template": map[string]interface{}{"spec": map[string]interface{}{
				"containers": []interface{}{map[string]interface{}{"name": "web", "image": image}},
			}},
		},
	}}
}

// writeHistoryRecording records a Deployment's life (created, image set,
// scaled, deleted, created again) among events of another Deployment and
// of pods, and returns the file.
func writeHistoryRecording(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rollout.rec")
	w, err := recording.Create(path, recording.Header{
		Started: historyStart,
		Types: []recording.Type{
			{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true},
			{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true, Singular: "deployment", ShortNames: []string{"deploy"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	other := recordedDeployment("u-other", "db:v1", 1, "1", "kubectl-create")
	other.SetName("db")
	pod := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]interface{}{"namespace": "shop", "name": "web", "uid": "u-pod"}}}
	sec := func(s int) time.Time { return historyStart.Add(time.Duration(s) * time.Second) }
	for _, ev := range []recording.Event{
		{Time: sec(0), Type: watch.Added, Initial: true, TypeIndex: 1, Object: other},
		{Time: sec(1), Type: watch.Added, TypeIndex: 1, Object: recordedDeployment("u1", "web:v1", 2, "2", "kubectl-create")},
		{Time: sec(2), Type: watch.Added, TypeIndex: 0, Object: pod},
		{Time: sec(3), Type: watch.Modified, TypeIndex: 1, Object: recordedDeployment("u1", "web:v1", 2, "3", "kubectl-create")}, // resourceVersion only
		{Time: sec(4), Type: watch.Modified, TypeIndex: 1, Object: recordedDeployment("u1", "web:v2", 2, "4", "kubectl-create", "kubectl-set")},
		{Time: sec(5), Type: watch.Modified, TypeIndex: 1, Object: recordedDeployment("u1", "web:v2", 4, "5", "kubectl-create", "kubectl-set", "kubectl-scale")},
		{Time: sec(6), Type: watch.Deleted, TypeIndex: 1, Object: recordedDeployment("u1", "web:v2", 4, "6", "kubectl-create", "kubectl-set", "kubectl-scale")},
		{Time: sec(7), Type: watch.Added, TypeIndex: 1, Object: recordedDeployment("u2", "web:v3", 1, "7", "kubectl-create")},
	} {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// runHistory runs the history command with args and returns its stdout,
// stderr and error.
func runHistory(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	configFlags := genericclioptions.NewConfigFlags(false)
	cmd := history.NewCmdHistory(configFlags, streams)
	configFlags.AddFlags(cmd.PersistentFlags())
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestHistoryText(t *testing.T) {
	path := writeHistoryRecording(t)
	out, _, err := runHistory(t, "deploy/web", "-n", "shop", "--from", path, "--color", "never")
	if err != nil {
		t.Fatalf("history = %v", err)
	}
	want := `2026-11-26T01:00:01.000Z ADDED    deployment.apps/web -n shop
2026-11-26T01:00:04.000Z MODIFIED deployment.apps/web -n shop  (by kubectl-set/Update)
    ~ spec.template.spec.containers[name=web].image: "web:v1" → "web:v2"
2026-11-26T01:00:05.000Z MODIFIED deployment.apps/web -n shop  (by kubectl-scale/Update/scale)
    ~ spec.replicas: 2 → 4
2026-11-26T01:00:06.000Z DELETED  deployment.apps/web -n shop
2026-11-26T01:00:07.000Z ADDED    deployment.apps/web -n shop
`
	if out != want {
		t.Fatalf("history deploy/web =\n%s\nwant\n%s", out, want)
	}
}

func TestHistoryJSON(t *testing.T) {
	path := writeHistoryRecording(t)
	out, _, err := runHistory(t, "deployments.apps/web", "-n", "shop", "--from", path, "-o", "json")
	if err != nil {
		t.Fatalf("history -o json = %v", err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type     string                   `json:"type"`
			Time     string                   `json:"time"`
			Managers []string                 `json:"managers"`
			Patch    []map[string]interface{} `json:"patch"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		s := ev.Type + " " + ev.Time
		if len(ev.Managers) > 0 {
			s += " " + strings.Join(ev.Managers, ",")
		}
		for _, op := range ev.Patch {
			s += " " + op["op"].(string) + ":" + op["path"].(string)
		}
		got = append(got, s)
	}
	want := []string{
		"ADDED 2026-11-26T01:00:01Z",
		"MODIFIED 2026-11-26T01:00:04Z kubectl-set/Update replace:/spec/template/spec/containers/0/image",
		"MODIFIED 2026-11-26T01:00:05Z kubectl-scale/Update/scale replace:/spec/replicas",
		"DELETED 2026-11-26T01:00:06Z",
		"ADDED 2026-11-26T01:00:07Z",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("history -o json =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestHistoryErrors(t *testing.T) {
	path := writeHistoryRecording(t)
	dump := filepath.Join(t.TempDir(), "pods.json")
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "never recorded", args: []string{"deploy/nope", "-n", "shop", "--from", path}, wantErr: `NotFound: deployments.apps "nope" in namespace "shop" was never recorded in ` + path},
		{name: "another namespace", args: []string{"deploy/web", "-n", "other", "--from", path}, wantErr: `in namespace "other"`},
		{name: "a type not recorded", args: []string{"services/web", "-n", "shop", "--from", path}, wantErr: "services"},
		{name: "no --from", args: []string{"deploy/web"}, wantErr: "--from FILE is required"},
		{name: "two recordings", args: []string{"deploy/web", "--from", path, "--from", path}, wantErr: "--from: history reads one recording, got 2"},
		{name: "not TYPE/NAME", args: []string{"deploy", "--from", path}, wantErr: `history needs one object as TYPE/NAME (deployment/web), got "deploy"`},
		{name: "a missing file", args: []string{"deploy/web", "--from", dump}, wantErr: "--from: opening " + dump},
		{name: "-o name", args: []string{"deploy/web", "--from", path, "-o", "name"}, wantErr: "-o/--output must be text, json or yaml for history"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runHistory(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("history %q = %v, want an error containing %q", tt.args, err, tt.wantErr)
			}
		})
	}
}
