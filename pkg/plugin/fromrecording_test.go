package plugin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/query"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/tree"
	pluginwatch "github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// runCommand runs the command newCmd builds with args, as the root would
// (its config flags persistent), and returns its stdout, stderr and error.
func runCommand(t *testing.T, newCmd func(*genericclioptions.ConfigFlags, genericiooptions.IOStreams) *cobra.Command, args ...string) (string, string, error) {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	configFlags := genericclioptions.NewConfigFlags(false)
	cmd := newCmd(configFlags, streams)
	configFlags.AddFlags(cmd.PersistentFlags())
	cmd.SetArgs(args)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestQueryAt(t *testing.T) {
	path := writeHistoryRecording(t)
	tests := []struct {
		at   string
		want string // -o name
	}{
		{at: "2026-11-26T01:00:00Z", want: "deployment.apps/db"},
		{at: "2026-11-26T01:00:01Z", want: "deployment.apps/db deployment.apps/web"},
		{at: "2026-11-26T01:00:06.5Z", want: "deployment.apps/db"},
		{at: "-0s", want: "deployment.apps/db deployment.apps/web"},
		{at: "-500ms", want: "deployment.apps/db"},
		{at: "-1500ms", want: "deployment.apps/db deployment.apps/web"},
		{at: "", want: "deployment.apps/db deployment.apps/web"},
		{at: "2026-11-27T00:00:00Z", want: "deployment.apps/db deployment.apps/web"},
	}
	for _, tt := range tests {
		t.Run(tt.at, func(t *testing.T) {
			args := []string{"deploy", "-n", "shop", "--from", path, "-o", "name"}
			if tt.at != "" {
				args = append(args, "--at", tt.at)
			}
			out, errOut, err := runCommand(t, query.NewCmdQuery, args...)
			if err != nil {
				t.Fatalf("query --at %s = %v (stderr %s)", tt.at, err, errOut)
			}
			if got := strings.Join(strings.Fields(out), " "); got != tt.want {
				t.Fatalf("query --at %s = %q, want %q", tt.at, got, tt.want)
			}
		})
	}
	// The image at an instant: the state, not only the names.
	out, _, err := runCommand(t, query.NewCmdQuery, "deploy", "-n", "shop", "--from", path, "--at", "2026-11-26T01:00:04.5Z", "--field-selector", "metadata.name=web", "-o", "jsonpath={.items[0].spec.template.spec.containers[0].image} {.items[0].spec.replicas}")
	if err != nil || out != "web:v2 2" {
		t.Fatalf("query deploy/web --at 01:00:04.5 = %q, %v, want web:v2 2", out, err)
	}
}

func TestRecordingFlagErrors(t *testing.T) {
	path := writeHistoryRecording(t)
	dump := filepath.Join(t.TempDir(), "dump.yaml")
	writeFile(t, dump, "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: shop}\n")
	tests := []struct {
		name    string
		newCmd  func(*genericclioptions.ConfigFlags, genericiooptions.IOStreams) *cobra.Command
		args    []string
		wantErr string
	}{
		{"--at before the start", query.NewCmdQuery, []string{"deploy", "--from", path, "--at", "2026-11-26T00:59:00Z"}, "--at 2026-11-26T00:59:00Z: 2026-11-26T00:59:00.000Z is before the recording's start"},
		{"--at not RFC 3339", query.NewCmdQuery, []string{"deploy", "--from", path, "--at", "noon"}, `--at "noon": want an RFC 3339 time`},
		{"--at without --from", query.NewCmdQuery, []string{"deploy", "--at", "-1m"}, "--at needs --from a recording"},
		{"--at with a dump", query.NewCmdQuery, []string{"pods", "--from", dump, "--at", "-1m"}, "--at needs --from a recording, and " + dump + " is not one"},
		{"a recording and a dump", query.NewCmdQuery, []string{"pods", "--from", path, "--from", dump}, "--from " + path + " is a recording: give it alone"},
		{"two recordings", tree.NewCmdTree, []string{"deploy/web", "--from", path, "--from", path}, "are both recordings"},
		{"--since without --from", pluginwatch.NewCmdWatch, []string{"deploy", "--since", "-1m"}, "--since needs --from a recording"},
		{"--speed negative", pluginwatch.NewCmdWatch, []string{"deploy", "--from", path, "--speed", "-2"}, "--speed must not be negative"},
		{"--until-time before --since", pluginwatch.NewCmdWatch, []string{"deploy", "--from", path, "--since", "-2s", "--until-time", "-3s"}, "--until-time -3s is before --since -2s"},
		{"--since before the start", pluginwatch.NewCmdWatch, []string{"deploy", "--from", path, "--since", "-1h"}, "--since -1h: 2026-11-26T00:00:07.000Z is before the recording's start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCommand(t, tt.newCmd, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("%q = %v, want an error containing %q", tt.args, err, tt.wantErr)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestWatchReplay(t *testing.T) {
	path := writeHistoryRecording(t)
	tests := []struct {
		name string
		args []string
		want string // -o name lines, joined by ", "
	}{
		{name: "the whole recording", want: "ADDED deployment.apps/web, MODIFIED deployment.apps/web, MODIFIED deployment.apps/web, DELETED deployment.apps/web, ADDED deployment.apps/web"},
		{name: "with the initial state", args: []string{"--initial"}, want: "ADDED deployment.apps/db, ADDED deployment.apps/web, MODIFIED deployment.apps/web, MODIFIED deployment.apps/web, DELETED deployment.apps/web, ADDED deployment.apps/web"},
		{name: "since and until", args: []string{"--initial", "--since", "2026-11-26T01:00:04Z", "--until-time", "2026-11-26T01:00:06Z"}, want: "ADDED deployment.apps/db, ADDED deployment.apps/web, MODIFIED deployment.apps/web, DELETED deployment.apps/web"},
		{name: "a duration before the end", args: []string{"--since", "-2s"}, want: "DELETED deployment.apps/web, ADDED deployment.apps/web"},
		{name: "until a duration before the end", args: []string{"--initial", "--until-time", "-3s"}, want: "ADDED deployment.apps/db, ADDED deployment.apps/web, MODIFIED deployment.apps/web"},
		{name: "until a condition", args: []string{"--until", "object.spec.replicas == 4"}, want: "ADDED deployment.apps/web, MODIFIED deployment.apps/web, MODIFIED deployment.apps/web"},
		{name: "at ten times the pace", args: []string{"--speed", "10"}, want: "ADDED deployment.apps/web, MODIFIED deployment.apps/web, MODIFIED deployment.apps/web, DELETED deployment.apps/web, ADDED deployment.apps/web"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"deploy", "-n", "shop", "--from", path, "-o", "name"}, tt.args...)
			done := make(chan struct{})
			var out, errOut string
			var err error
			began := time.Now()
			go func() {
				defer close(done)
				out, errOut, err = runCommand(t, pluginwatch.NewCmdWatch, args...)
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("watch %q did not end by itself", args)
			}
			if err != nil {
				t.Fatalf("watch %q = %v (stderr %s)", args, err, errOut)
			}
			got := strings.Join(strings.Split(strings.TrimSpace(out), "\n"), ", ")
			if got != tt.want {
				t.Fatalf("watch %q printed\n%s\nwant\n%s", args, got, tt.want)
			}
			if tt.name == "at ten times the pace" {
				// The events span 1s to 7s after the start at 0s: 0.7s at 10x.
				if took := time.Since(began); took < 600*time.Millisecond {
					t.Fatalf("watch --speed 10 took %s, want at least 0.6s", took)
				}
			}
		})
	}
}

// TestWatchReplayTimes checks that a replay's events carry the time each
// state was recorded, the initial state the time of the replay's start.
func TestWatchReplayTimes(t *testing.T) {
	path := writeHistoryRecording(t)
	out, errOut, err := runCommand(t, pluginwatch.NewCmdWatch, "deploy", "-n", "shop", "--from", path, "--initial", "--since", "2026-11-26T01:00:02Z", "-o", "json")
	if err != nil {
		t.Fatalf("watch = %v (stderr %s)", err, errOut)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct{ Type, Time string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, ev.Type+" "+ev.Time)
	}
	want := "ADDED 2026-11-26T01:00:02Z, ADDED 2026-11-26T01:00:02Z, MODIFIED 2026-11-26T01:00:04Z, MODIFIED 2026-11-26T01:00:05Z, DELETED 2026-11-26T01:00:06Z, ADDED 2026-11-26T01:00:07Z"
	if strings.Join(got, ", ") != want {
		t.Fatalf("watch --since 01:00:02 -o json times:\n%s\nwant\n%s", strings.Join(got, ", "), want)
	}
}

// TestQueryTruncatedRecording checks that a recording cut off after its
// last flushed event answers up to there, with a warning.
func TestQueryTruncatedRecording(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cut.rec")
	w, err := recording.Create(path, recording.Header{
		Started: historyStart,
		Types:   []recording.Type{{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	other := recordedDeployment("u-other", "db:v1", 1, "1", "kubectl-create")
	other.SetName("db")
	for _, ev := range []recording.Event{
		{Time: historyStart, Type: watch.Added, Initial: true, Object: other},
		{Time: historyStart.Add(time.Second), Type: watch.Added, Object: recordedDeployment("u1", "web:v1", 2, "2", "kubectl-create")},
	} {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	// A third event, not flushed: the file ends after the second, as if
	// the recorder had crashed, without the compressor's end.
	if err := w.Write(recording.Event{Time: historyStart.Add(2 * time.Second), Type: watch.Deleted, Object: other}); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCommand(t, query.NewCmdQuery, "deploy", "-n", "shop", "--from", path, "-o", "name")
	if err != nil {
		t.Fatalf("query a cut recording = %v", err)
	}
	if got := strings.Join(strings.Fields(out), " "); got != "deployment.apps/db deployment.apps/web" {
		t.Errorf("query a cut recording = %q, want db and web", got)
	}
	if !strings.Contains(errOut, "was cut off after its last complete event, at 2026-11-26T01:00:01.000Z") {
		t.Errorf("query a cut recording: stderr %q, want a warning that it was cut off", errOut)
	}
	_ = w.Close()
}
