package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/spf13/cobra"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

// run executes the root command with args and returns its error and
// streams. --server points at a closed port: these tests must fail before
// any request.
func run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	cmd := NewCmdRoot(streams)
	cmd.SetArgs(append(args, "--server", "https://127.0.0.1:1"))
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestBadInputNamesTheFlag(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no type", []string{"query"}, "you must specify the type of resource to query"},
		{"two type arguments", []string{"query", "pods", "deployments"}, "join types with commas: pods,deployments"},
		{"bad index selector", []string{"query", "pods", "--index", "node in (a"}, `--index "node in (a": missing ")"`},
		{"unknown index", []string{"query", "pods", "--index", "nod=x"}, `unknown index "nod"`},
		{"unknown group-by", []string{"query", "pods", "--group-by", "x"}, `--group-by x: unknown index "x"`},
		{"group-by with json", []string{"query", "pods", "--group-by", "node", "-o", "json"}, "--group-by and --sum print a table of groups; they cannot be combined with -o json"},
		{"unknown measure", []string{"query", "pods", "--group-by", "node", "--sum", "cpu"}, `--sum needs MEASURE or NAME=JSONPATH, got "cpu"`},
		{"bad measure resource", []string{"query", "pods", "--sum", "requests.a b"}, `--sum requests.a b: invalid resource name`},
		{"negative top", []string{"query", "pods", "--group-by", "node", "--top", "-1"}, "--top must be 0 (all rows) or more, got -1"},
		{"top without groups", []string{"query", "pods", "--top", "3"}, "--top cuts a grouped table"},
		{"grouped sort-by not a column", []string{"query", "pods", "--group-by", "node", "--sum", "requests.cpu", "--sort-by", "{.metadata.name}"}, "--sort-by {.metadata.name}: with --group-by or --sum, --sort-by takes a column of the table: node, count, requests.cpu"},
		{"group-by twice", []string{"query", "pods", "--group-by", "node,node"}, "--group-by node: named twice"},
		{"empty group-by", []string{"query", "pods", "--group-by", "node,"}, "--group-by needs index names"},
		{"sum named like a column", []string{"query", "pods", "--group-by", "node", "--sum", "node={.spec.x}"}, "--sum node: the table already has a column node"},
		{"bad indexer", []string{"query", "pods", "--indexer", "img"}, "--indexer"},
		{"capacity unknown measure", []string{"capacity", "--sum", "cpu"}, `--sum needs MEASURE or NAME=JSONPATH, got "cpu"`},
		{"capacity measure not a resource", []string{"capacity", "--sum", "restarts"}, "--sum restarts: capacity sums requests.RESOURCE and limits.RESOURCE only"},
		{"capacity negative top", []string{"capacity", "--top", "-1"}, "--top must be 0 (all rows) or more, got -1"},
		{"capacity bad output", []string{"capacity", "-o", "wide"}, `-o/--output must be json or yaml (or absent, for a table), got "wide"`},
		{"capacity bad sort-by", []string{"capacity", "--sort-by", "cpu"}, "--sort-by cpu: capacity has no such column; columns are node, pods, requests.cpu"},
		{"capacity unknown group-by", []string{"capacity", "--group-by", "zone"}, `--group-by zone: unknown index "zone"`},
		{"capacity bad selector", []string{"capacity", "-l", "a in (b"}, "invalid --selector"},
		{"capacity with an argument", []string{"capacity", "nodes"}, `unknown command "nodes"`},
		{"bad output", []string{"query", "pods", "-o", "xml"}, `unknown -o/--output format "xml"`},
		{"bad custom columns", []string{"query", "pods", "-o", "custom-columns=NAME"}, "expected HEADER:JSONPATH"},
		{"bad label selector", []string{"query", "pods", "-l", "a in (b"}, "invalid --selector"},
		{"bad sync timeout", []string{"query", "pods", "--sync-timeout", "-1s"}, "--sync-timeout must be positive"},
		{"watch without type", []string{"watch"}, "you must specify the type of resource to watch"},
		{"bad diff", []string{"watch", "pods", "--diff", "side"}, "--diff must be compact, unified or none"},
		{"bad watch output", []string{"watch", "pods", "-o", "wide"}, "-o/--output must be text, json, yaml or name"},
		{"bad color", []string{"watch", "pods", "--color", "sometimes"}, "--color must be auto, always or never"},
		{"bad where", []string{"watch", "pods", "--where", "node!x"}, `--where "node!x": unexpected "!"`},
		{"bad ignore path", []string{"watch", "pods", "--ignore", "spec..x"}, "--ignore: invalid path"},
		{"mixed TYPE/NAME", []string{"watch", "pod/a", "b"}, "expected TYPE/NAME"},
		{"unknown flag", []string{"query", "pods", "--indx", "a=b"}, "unknown flag: --indx"},
		{"filter syntax", []string{"query", "pods", "--filter", "object.spec.x =="}, "--filter: 1:"},
		{"filter undeclared", []string{"query", "pods", "--filter", "objet.spec.x"}, "--filter: 1:1: undeclared reference to 'objet'"},
		{"filter type", []string{"query", "pods", "--filter", "object.metadata.name + 'x'"}, "--filter: 1:1: expression has type string, want bool"},
		{"computed index syntax", []string{"query", "pods", "--indexer", "r=object.status.(", "--group-by", "r"}, "--indexer r: 1:"},
		{"watch filter", []string{"watch", "pods", "--filter", "object.spec.containers.size()"}, "--filter: 1:1: expression has type int, want bool"},
		{"until syntax", []string{"watch", "deploy/web", "--until", "object.status.replicas >"}, "--until: 1:"},
		{"until-all type", []string{"watch", "deploy", "--until-all", "'x'"}, "--until-all: 1:1: expression has type string, want bool"},
		{"until and until-all", []string{"watch", "deploy", "--until", "true", "--until-all", "true"}, "--until and --until-all cannot be combined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := run(t, tt.args...)
			if err == nil {
				t.Fatalf("%v = nil error, want one containing %q", tt.args, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v = %q, want it to contain %q", tt.args, err, tt.want)
			}
			if out != "" {
				t.Errorf("%v printed %q on stdout, want nothing", tt.args, out)
			}
		})
	}
}

func TestIndexersListsBuiltins(t *testing.T) {
	out, _, err := run(t, "indexers")
	if err != nil {
		t.Fatalf("indexers: %v", err)
	}
	for _, name := range []string{"INDEX", "namespace", "label:KEY", "owner-uid", "node", "phase", "image"} {
		if !strings.Contains(out, name) {
			t.Errorf("indexers output lacks %q:\n%s", name, out)
		}
	}
}

func TestVersionJSON(t *testing.T) {
	out, _, err := run(t, "version", "-o", "json")
	if err != nil {
		t.Fatalf("version -o json: %v", err)
	}
	for _, key := range []string{`"version"`, `"commit"`, `"goVersion"`, `"clientGoVersion"`} {
		if !strings.Contains(out, key) {
			t.Errorf("version -o json lacks %s:\n%s", key, out)
		}
	}
}

func TestUsageSaysKubectlInformer(t *testing.T) {
	out, _, err := run(t, "query", "--help")
	if err != nil {
		t.Fatalf("query --help: %v", err)
	}
	if !strings.Contains(out, "kubectl informer query TYPE[,TYPE...]") {
		t.Errorf("query --help usage does not read 'kubectl informer query':\n%s", out)
	}
}

func TestWriteTableEscapesControlCharacters(t *testing.T) {
	var b strings.Builder
	if err := printing.WriteTable(&b, []string{"NAME", "VALUE"}, [][]string{{"evil\x1b[31m", "ok"}}, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Errorf("writeTable emitted a raw escape:\n%q", b.String())
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("line %q has trailing spaces", line)
		}
	}
}

func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{"", "wide", "json", "yaml", "name", "jsonpath={.items[*].metadata.name}",
		"custom-columns=NAME:.metadata.name,NODE:.spec.nodeName", "go-template={{.kind}}", "custom-columns=", "xml"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, "-file") || strings.Contains(s, "templatefile") {
			t.Skip("file formats read the file system")
		}
		out, err := printing.ParseOutput(s)
		if err != nil {
			if err.Error() == "" {
				t.Errorf("parseOutput(%q) returned an empty error", s)
			}
			return
		}
		if !out.IsTable() && out.Printer == nil {
			t.Errorf("parseOutput(%q) = format %q with no printer", s, out.Format)
		}
	})
}

func TestWatchGroupFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--group-by", "node", "-o", "json"}, "cannot be combined with -o/--output"},
		{[]string{"--sum", "requests.cpu", "--until", "true"}, "cannot be combined with --until"},
		{[]string{"--group-by", "node", "--initial"}, "cannot be combined with --initial"},
		{[]string{"--group-by", "node", "--group-by", "node"}, "--group-by node: named twice"},
		{[]string{"--sum", "bogus"}, "--sum"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, _, err := run(t, append([]string{"watch", "pods"}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("watch %v = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}

func TestQueryWatchFlagsNameTheFlag(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"query", "pods", "--output-watch-events"}, "--output-watch-events needs --watch or --watch-only"},
		{[]string{"query", "pods", "--watch-only", "--group-by", "node"}, "--watch-only prints changed objects"},
		{[]string{"query", "pods", "-w", "--output-watch-events", "--group-by", "node"}, "--output-watch-events prints changed objects"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, _, err := run(t, append(tt.args, "--cache=off")...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestRecordBadInput(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "rec")
	if err := os.WriteFile(existing, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no type", []string{"record", "--to", "f"}, "you must specify the types to record"},
		{"two arguments", []string{"record", "pods", "web", "--to", "f"}, `record takes TYPE[,TYPE...] only, got "pods web"`},
		{"type and name", []string{"record", "pods/web", "--to", "f"}, `record takes TYPE[,TYPE...] only, got "pods/web"`},
		{"no --to", []string{"record", "pods"}, "--to is required"},
		{"negative duration", []string{"record", "pods", "--to", "f", "--duration", "-1s"}, "--duration must not be negative"},
		{"indexer", []string{"record", "pods", "--to", "f", "--indexer", "x={.a}"}, "--indexer does not apply to record"},
		{"bad selector", []string{"record", "pods", "--to", "f", "-l", "a in (b"}, "invalid --selector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := run(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v: err = %v, want %q", tt.args, err, tt.want)
			}
		})
	}
}

func TestCheckFleetCommand(t *testing.T) {
	root := NewCmdRoot(genericiooptions.NewTestIOStreamsDiscard())
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"record", "pods", "--to", "x", "--context", "a,b"}, "supported by query, watch, capacity, tree and cache start|status|stop only"},
		{[]string{"history", "rec.ndjson", "--context", "prod-*"}, "supported by query, watch, capacity, tree and cache start|status|stop only"},
	} {
		root.SetArgs(tc.args)
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.wantErr)
		}
	}
	var cmd cobra.Command
	cmd.Use = "query"
	value := "a,b"
	cf := genericclioptions.NewConfigFlags(true)
	cf.Context = &value
	if err := checkFleetCommand(&cmd, cf); err != nil {
		t.Errorf("query --context a,b: %v", err)
	}
}
