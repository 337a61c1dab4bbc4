package cachecmd

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// TestValidateServe checks --idle-timeout and --evict-after: 0 (never) or
// at least a second, each error naming its flag.
func TestValidateServe(t *testing.T) {
	for _, tt := range []struct {
		d       time.Duration
		wantErr bool
	}{
		{0, false}, {time.Second, false}, {30 * time.Minute, false},
		{1, true}, {3 * time.Nanosecond, true}, {999 * time.Millisecond, true}, {-time.Second, true},
	} {
		for _, f := range []struct {
			flag string
			err  error
		}{
			{"--idle-timeout", validateServe(tt.d, 0, "", time.Hour)},
			{"--evict-after", validateServe(0, tt.d, "", time.Hour)},
		} {
			if (f.err != nil) != tt.wantErr {
				t.Errorf("%s %s: %v, want error %v", f.flag, tt.d, f.err, tt.wantErr)
			}
			if f.err != nil && !strings.Contains(f.err.Error(), f.flag) {
				t.Errorf("%s %s: %q, want it to name the flag", f.flag, tt.d, f.err)
			}
		}
	}
}

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
