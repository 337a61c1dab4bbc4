package tree

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestParseTreeArgs(t *testing.T) {
	tests := []struct {
		args    []string
		want    string
		wantErr string
	}{
		{[]string{"deployment/web"}, "[{deployment [web]}]", ""},
		{[]string{"deploy/web", "cronjob/backup", "deploy/api"}, "[{deploy [web api]} {cronjob [backup]}]", ""},
		{[]string{"deploy"}, "[{deploy []}]", ""},
		{[]string{"deploy", "web", "api"}, "[{deploy [web api]}]", ""},
		{nil, "", "you must specify a root"},
		{[]string{"deploy", "pod/x"}, "", "no need to specify a resource type"},
		{[]string{"deploy,rs"}, "", "tree takes one TYPE"},
		{[]string{"deploy/"}, "", "must have a single resource and name"},
		{[]string{"deploy/a/b"}, "", "must have a single resource and name"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := parseTreeArgs(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("parseTreeArgs(%q) error = %v, want %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseTreeArgs(%q) error = %v", tt.args, err)
			}
			var roots []string
			for _, r := range got {
				roots = append(roots, fmt.Sprintf("{%s %v}", r.typ, r.names))
			}
			if s := "[" + strings.Join(roots, " ") + "]"; s != tt.want {
				t.Errorf("parseTreeArgs(%q) = %s, want %s", tt.args, s, tt.want)
			}
		})
	}
}

func TestTreeValidate(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		flags   map[string]string
		wantErr string
	}{
		{"wide", []string{"deploy/web"}, map[string]string{"output": "wide"}, "cannot print -o wide"},
		{"types with up", []string{"pod/p"}, map[string]string{"up": "true", "types": "pods"}, "--types limits the types followed down"},
		{"selector with names", []string{"deploy/web"}, map[string]string{"selector": "app=web"}, "--selector picks roots"},
		{"name across namespaces", []string{"deploy/web"}, map[string]string{"all-namespaces": "true"}, "cannot be retrieved by name across all namespaces"},
		{"refs with up", []string{"configmap/app"}, map[string]string{"refs": "true", "up": "true"}, "--refs follows references; it cannot be combined with --up or --types"},
		{"refs with types", []string{"configmap/app"}, map[string]string{"refs": "true", "types": "pods"}, "--refs follows references"},
		{"refs", []string{"configmap/app"}, map[string]string{"refs": "true", "output": "name"}, ""},
		{"ok", []string{"deploy"}, map[string]string{"selector": "app=web", "output": "name"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streams, _, _, _ := genericiooptions.NewTestIOStreams()
			configFlags := genericclioptions.NewConfigFlags(false)
			server := "https://127.0.0.1:1"
			configFlags.APIServer = &server
			cmd := NewCmdTree(configFlags, streams)
			// Setting the flags proves they exist; the options below carry the values.
			for k, v := range tt.flags {
				if err := cmd.Flags().Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			o := NewTreeOptions(configFlags, streams)
			o.Output, o.LabelSelector, o.SyncTimeout = tt.flags["output"], tt.flags["selector"], 1
			o.Up = tt.flags["up"] == "true"
			o.Refs = tt.flags["refs"] == "true"
			o.AllNamespaces = tt.flags["all-namespaces"] == "true"
			if tt.flags["types"] != "" {
				o.Types = []string{tt.flags["types"]}
			}
			err := o.Complete(cmd, tt.args)
			if err == nil {
				err = o.Validate()
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("Complete+Validate(%s) = %v, want nil", tt.name, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Complete+Validate(%s) = %v, want %q", tt.name, err, tt.wantErr)
			}
		})
	}
}

// TestTreeAnswerAsData: a tree's answer travels as JSON, and prints the
// same after the trip, for one target and for several.
func TestTreeAnswerAsData(t *testing.T) {
	answer := &treeAnswer{Context: "prod", Namespace: "shop", Lines: []Line{
		{Kind: "Deployment", Group: "apps", Namespace: "shop", Name: "web", Ready: "1/1", Age: "5m",
			Object: map[string]interface{}{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]interface{}{"name": "web"}}},
		{Depth: 1, Prefix: "└─", Kind: "ReplicaSet", Group: "apps", Namespace: "shop", Name: "web-5d9c7", Ready: "1/1", Age: "5m"},
		{Depth: 2, Prefix: "  └─", Kind: "Pod", Namespace: "shop", Name: "web-5d9c7-x2x4z", Ready: "1/1", Status: "Running", Age: "4m"},
	}}
	data, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	var travelled treeAnswer
	if err := json.Unmarshal(data, &travelled); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		output  string
		several bool
		want    string
	}{
		{"", false, "NAMESPACE   NAME                      READY   STATUS    AGE\n" +
			"shop        Deployment/web            1/1               5m\n" +
			"shop        └─ReplicaSet/web-5d9c7    1/1               5m\n" +
			"shop          └─Pod/web-5d9c7-x2x4z   1/1     Running   4m\n"},
		{"name", false, "deployment.apps/web\nreplicaset.apps/web-5d9c7\npod/web-5d9c7-x2x4z\n"},
		{"name", true, "prod/deployment.apps/web\nprod/replicaset.apps/web-5d9c7\nprod/pod/web-5d9c7-x2x4z\n"},
		{"json", true, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("-o %q several %v", tt.output, tt.several), func(t *testing.T) {
			var printed [2]string
			for i, a := range []*treeAnswer{answer, &travelled} {
				streams, _, out, _ := genericiooptions.NewTestIOStreams()
				o := NewTreeOptions(genericclioptions.NewConfigFlags(false), streams)
				o.Output = tt.output
				var err error
				if o.out, err = printing.ParseOutput(tt.output); err != nil {
					t.Fatal(err)
				}
				if err := o.printTrees([]*treeAnswer{a}, tt.several); err != nil {
					t.Fatal(err)
				}
				printed[i] = out.String()
			}
			if printed[0] != printed[1] {
				t.Errorf("printed after a JSON trip:\n%s\nwant\n%s", printed[1], printed[0])
			}
			if tt.want != "" && printed[0] != tt.want {
				t.Errorf("printed:\n%s\nwant\n%s", printed[0], tt.want)
			}
		})
	}
}

// TestTreeFromRefusesContexts: --from reads files, so a selection of
// contexts is refused, before any kubeconfig is read.
func TestTreeFromRefusesContexts(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "dump.yaml")
	if err := os.WriteFile(dump, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--context", "a,b"}, {"--all-contexts"}} {
		configFlags := genericclioptions.NewConfigFlags(false)
		cmd := NewCmdTree(configFlags, genericiooptions.NewTestIOStreamsDiscard())
		configFlags.AddFlags(cmd.Flags())
		cmd.SetArgs(append([]string{"configmap/a", "--from", dump, "--kubeconfig", filepath.Join(t.TempDir(), "none")}, args...))
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		cmd.SilenceUsage = true
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--from reads files, not contexts") {
			t.Errorf("tree --from %v: error %v, want --from refused", args, err)
		}
	}
}
