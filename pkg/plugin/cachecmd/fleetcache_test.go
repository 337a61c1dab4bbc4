package cachecmd

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

func TestWithContextArg(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"--context=a"}},
		{[]string{"--kubeconfig=/k", "--context=a,b", "--as=jane"}, []string{"--kubeconfig=/k", "--as=jane", "--context=a"}},
		{[]string{"--context=prod-*"}, []string{"--context=a"}},
		{[]string{"--contexts-like=x"}, []string{"--contexts-like=x", "--context=a"}},
	} {
		if got := withContextArg(tc.args, "a"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("withContextArg(%q): %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestEachContextNamesFailures(t *testing.T) {
	sel := targets.Set{Targets: []targets.Target{{Name: "a"}, {Name: "b"}, {Name: "c"}}, Missing: []string{"gone"}, Several: true}
	var out, errOut bytes.Buffer
	err := eachContext(sel, &out, &errOut, func(t targets.Target, o, e io.Writer) error {
		name := t.Name
		if name == "b" {
			io.WriteString(e, "warning: slow\n")
			return errors.New("refused")
		}
		io.WriteString(o, "started "+name+"\n")
		return nil
	})
	var partial *targets.PartialError
	if !errors.As(err, &partial) || partial.Failed != 2 || partial.Total != 4 {
		t.Errorf("error %v, want 2 of 4 contexts failed", err)
	}
	if want := "context a: started a\ncontext c: started c\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	want := "error: context gone: not in the kubeconfig\ncontext b: warning: slow\nerror: context b: refused\n"
	if errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	if err := eachContext(targets.Set{Targets: []targets.Target{{Name: "a"}}, Several: true}, io.Discard, io.Discard, func(targets.Target, io.Writer, io.Writer) error { return nil }); err != nil {
		t.Errorf("no failure: error %v", err)
	}
	// One target writes as it is, and its error is the command's.
	out.Reset()
	errOut.Reset()
	refused := errors.New("refused")
	err = eachContext(targets.Set{Targets: []targets.Target{{Name: "a"}}}, &out, &errOut, func(_ targets.Target, o, e io.Writer) error {
		io.WriteString(o, "started\n")
		io.WriteString(e, "warning: slow\n")
		return refused
	})
	if err != refused || out.String() != "started\n" || errOut.String() != "warning: slow\n" {
		t.Errorf("one target: error %v, stdout %q, stderr %q; want %v, the lines unprefixed", err, out.String(), errOut.String(), refused)
	}
}

func TestFleetStatusEntries(t *testing.T) {
	fs := &fleetStatus{
		contexts: map[string][]string{"/s/2": {"b"}, "/s/1": {"a", "a2"}, "/s/3": {"c"}},
		sockets:  []string{"/s/2", "/s/1", "/s/3"},
	}
	all := []cacheEntry{
		{Socket: "/s/1", Status: &protocol.Status{Pid: 1}, Shell: usedByShell},
		{Socket: "/s/9", Status: &protocol.Status{Pid: 9}},
		{Socket: "/s/2", Status: &protocol.Status{Pid: 2}},
	}
	got := fs.entries(all)
	want := []cacheEntry{
		{Socket: "/s/2", Status: &protocol.Status{Pid: 2}, Contexts: []string{"b"}},
		{Socket: "/s/1", Status: &protocol.Status{Pid: 1}, Contexts: []string{"a", "a2"}},
		{Socket: "/s/3", Error: noCacheRuns, Contexts: []string{"c"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n%+v\nwant\n%+v", got, want)
	}
}

func TestCacheStatusFleetTable(t *testing.T) {
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	o := &CacheStatusOptions{IOStreams: streams}
	err := o.printTables([]cacheEntry{
		{Socket: "/s/1", Status: &protocol.Status{Pid: 1, Server: "https://a", User: "admin", Context: "started-as"}, Contexts: []string{"a", "a2"}},
		{Socket: "/s/3", Error: noCacheRuns, Contexts: []string{"c"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("table:\n%s", out)
	}
	if f := strings.Fields(lines[1]); f[3] != "a,a2" {
		t.Errorf("CONTEXT of the running cache %q, want a,a2:\n%s", f[3], out)
	}
	if f := strings.Fields(lines[2]); f[3] != "c" || !strings.Contains(lines[2], "(no cache runs)") {
		t.Errorf("row of c: %q", lines[2])
	}
}
