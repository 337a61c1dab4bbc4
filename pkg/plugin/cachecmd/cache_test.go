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

func TestValidateIdleTimeout(t *testing.T) {
	for _, tt := range []struct {
		d       time.Duration
		wantErr bool
	}{
		{0, false}, {time.Second, false}, {30 * time.Minute, false},
		{1, true}, {3 * time.Nanosecond, true}, {999 * time.Millisecond, true}, {-time.Second, true},
	} {
		err := validateIdleTimeout(tt.d)
		if (err != nil) != tt.wantErr {
			t.Errorf("validateIdleTimeout(%s) = %v, want error %v", tt.d, err, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), "--idle-timeout") {
			t.Errorf("validateIdleTimeout(%s) = %q, want it to name the flag", tt.d, err)
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
