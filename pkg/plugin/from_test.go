package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// fromDump is a dump of a small cluster: two nodes (worker-2
// unschedulable), Deployment web with ReplicaSet web-5d8f and its two pods,
// pod db-0 in shop and job-x in batch (a PodList as cluster-info dump
// writes it), Service web, a CRD of widgets (short name wd) and two widgets.
const fromDump = "../offline/testdata"

// runFrom executes the root command with args under a kubeconfig whose
// context names namespace "other" and a server on a closed port: a command
// with --from must use neither.
func runFrom(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: other}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	cmd := NewCmdRoot(streams)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%v did not end within 30s", args)
	}
	return out.String(), errOut.String(), err
}

func TestFrom(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    string // stdout, exactly
		wantErr string // stderr must contain it
		// wantNotErr, when set, must not be in stderr.
		wantNotErr string
	}{{
		name: "query by short name in -n",
		args: []string{"query", "po", "-n", "shop", "--from", fromDump},
		want: `NAME         READY   STATUS    RESTARTS   AGE
db-0         0/1     Pending   0          <unknown>
web-5d8f-a   0/1     Running   0          <unknown>
web-5d8f-b   0/1     Running   0          <unknown>
`,
	}, {
		name:    "without -n: the default namespace, not the kubeconfig's",
		args:    []string{"query", "pods", "--from", fromDump},
		wantErr: "No resources found in default namespace.",
	}, {
		name: "field selector and index across namespaces",
		args: []string{"query", "pods", "-A", "--field-selector", "spec.nodeName=worker-2", "--index", "node=worker-2", "-o", "name", "--from", fromDump},
		want: "pod/job-x\npod/web-5d8f-b\n",
	}, {
		name: "phase and namespace indexes, which the engine has the source select",
		args: []string{"query", "pods", "-A", "--index", "phase=Running", "--index", "namespace!=batch", "-o", "name", "--from", fromDump},
		want: "pod/web-5d8f-a\npod/web-5d8f-b\n",
	}, {
		name: "phase index with notin",
		args: []string{"query", "pods", "-A", "--index", "phase notin (Running)", "-o", "name", "--from", fromDump},
		want: "pod/job-x\npod/db-0\n",
	}, {
		name: "another served version of a custom resource",
		args: []string{"query", "widgets.v1beta1.example.com", "-n", "shop", "-o", "jsonpath={.items[*].apiVersion}", "--from", fromDump},
		want: "example.com/v1beta1 example.com/v1beta1",
	}, {
		name: "label selector",
		args: []string{"query", "pods", "-A", "-l", "app=web", "-o", "name", "--from", fromDump},
		want: "pod/web-5d8f-a\npod/web-5d8f-b\n",
	}, {
		name: "relation through nodes",
		args: []string{"query", "pods", "-A", "--index", "node.label:topology.kubernetes.io/zone=b", "-o", "name", "--from", fromDump},
		want: "pod/job-x\npod/web-5d8f-b\n",
	}, {
		name: "group by owner root",
		args: []string{"query", "pods", "-n", "shop", "--group-by", "owner-root", "--from", fromDump},
		want: "OWNER-ROOT       COUNT\nDeployment/web   2\n",
	}, {
		name: "selected-by",
		args: []string{"query", "pods", "-n", "shop", "--index", "selected-by=Service/web", "-o", "name", "--from", fromDump},
		want: "pod/web-5d8f-a\npod/web-5d8f-b\n",
	}, {
		name: "sum of requests by node",
		args: []string{"query", "pods", "-A", "--group-by", "node", "--sum", "requests.cpu", "--from", fromDump},
		want: "NODE       COUNT   REQUESTS.CPU\nworker-1   2       1500m\nworker-2   2       250m\nTOTAL      4       1750m\n",
	}, {
		name: "custom resource by its CRD's short name, with a filter",
		args: []string{"query", "wd", "-n", "shop", "--filter", "object.spec.size > 4", "-o", "name", "--from", fromDump},
		want: "widget.example.com/red\n",
	}, {
		name: "columns of a built-in type",
		args: []string{"query", "deploy.apps", "-n", "shop", "--from", fromDump},
		want: "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    2/2     2            2           <unknown>\n",
	}, {
		name: "json output",
		args: []string{"query", "nodes", "--field-selector", "spec.unschedulable=true", "-o", "jsonpath={.items[*].metadata.name}", "--from", fromDump},
		want: "worker-2",
	}, {
		name: "tree",
		args: []string{"tree", "deploy/web", "-n", "shop", "--from", fromDump},
		want: `NAMESPACE   NAME                    READY   STATUS    AGE
shop        Deployment/web          2/2
shop        └─ReplicaSet/web-5d8f   2
shop          ├─Pod/web-5d8f-a      0/1     Running
shop          └─Pod/web-5d8f-b      0/1     Running
`,
	}, {
		name: "capacity",
		args: []string{"capacity", "--from", fromDump},
		want: `NODE       PODS         CPU REQUESTS   CPU LIMITS   MEMORY REQUESTS   MEMORY LIMITS
worker-1   2/110 (1%)   1500m (37%)    0 (0%)       1280Mi (15%)      0 (0%)
worker-2   1/110 (0%)   250m (12%)     0 (0%)       128Mi (3%)        0 (0%)
TOTAL      3/220 (1%)   1750m (29%)    0 (0%)       1408Mi (11%)      0 (0%)
`,
	}, {
		name: "watch prints the dump as the initial state and ends",
		args: []string{"watch", "pods", "-A", "--from", fromDump},
		want: "ADDED    pod/job-x -n batch\nADDED    pod/db-0 -n shop\nADDED    pod/web-5d8f-a -n shop\nADDED    pod/web-5d8f-b -n shop\n",
	}, {
		name:    "watch --until met on the dump",
		args:    []string{"watch", "pods", "-A", "--until", `object.status.phase == "Succeeded"`, "--from", fromDump},
		wantErr: "--until: the condition holds for pod/job-x -n batch already",
	}, {
		name: "grouped watch prints its table and ends",
		args: []string{"watch", "pods", "-A", "--group-by", "node", "--from", fromDump},
		want: "NODE       COUNT\nworker-1   2\nworker-2   2\n",
		// A dump holds no changes: the watch does not say it watches.
		wantErr:    "read pods: 4 from --from; a dump holds no changes to watch",
		wantNotErr: "watching for changes",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runFrom(t, tt.args...)
			if err != nil {
				t.Fatalf("%v = %v (stderr %q)", tt.args, err, stderr)
			}
			if stdout != tt.want {
				t.Errorf("%v printed\n%s\nwant\n%s", tt.args, stdout, tt.want)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("%v: stderr %q, want %q in it", tt.args, stderr, tt.wantErr)
			}
			if tt.wantNotErr != "" && strings.Contains(stderr, tt.wantNotErr) {
				t.Errorf("%v: stderr %q, want no %q in it", tt.args, stderr, tt.wantNotErr)
			}
		})
	}
}

func TestFromErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing path", []string{"query", "pods", "--from", "testdata/nope"}, "--from testdata/nope: no such file or directory"},
		{"unknown type", []string{"query", "gadgets", "--from", fromDump}, `the --from files have no resource type "gadgets"`},
		{"unsupported field selector", []string{"query", "pods", "--field-selector", "spec.foo=x", "--from", fromDump}, "listing pods: field label not supported: spec.foo"},
		{"watch --until not met by the end", []string{"watch", "pods", "-n", "shop", "--until", `object.status.phase == "Succeeded"`, "--from", fromDump}, "did not hold for any watched object by the end of --from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := runFrom(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("%v = %v (stderr %q), want an error with %q", tt.args, err, stderr, tt.want)
			}
		})
	}
	bad := filepath.Join(t.TempDir(), "pods.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\nkind: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runFrom(t, "query", "pods", "--from", fromDump, "--from", bad); err == nil || !strings.Contains(err.Error(), "--from "+bad+": document 2: yaml: line") {
		t.Fatalf("query --from %s = %v, want an error naming the file and line", bad, err)
	}
}

// TestFromCompletion checks that TYPE completes from the --from files'
// types (the CRD's widgets and its short name wd among them), not from the
// kubeconfig's server, which runFrom makes unreachable.
func TestFromCompletion(t *testing.T) {
	tests := []struct {
		cmd, prefix string
		want        []string
		notWant     []string
	}{
		{"query", "w", []string{"widgets", "wd"}, []string{"pods"}},
		{"watch", "po", []string{"pods", "po", "podtemplates"}, []string{"widgets"}},
		{"tree", "pods,wid", []string{"pods,widgets"}, []string{"pods,pods"}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd+" "+tt.prefix, func(t *testing.T) {
			stdout, stderr, err := runFrom(t, "__complete", tt.cmd, "--from", fromDump, tt.prefix)
			if err != nil {
				t.Fatalf("__complete = %v (stderr %q)", err, stderr)
			}
			got := map[string]bool{}
			for _, line := range strings.Split(stdout, "\n") {
				if line != "" && !strings.HasPrefix(line, ":") {
					got[strings.SplitN(line, "\t", 2)[0]] = true
				}
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("__complete %s --from … %q = %q, want %q in it", tt.cmd, tt.prefix, stdout, w)
				}
			}
			for _, w := range tt.notWant {
				if got[w] {
					t.Errorf("__complete %s --from … %q = %q, want no %q", tt.cmd, tt.prefix, stdout, w)
				}
			}
		})
	}
}
