package targets

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	boom := errors.New("boom")
	var set []Target
	for _, name := range []string{"ok", "fails", "late", "honours-cancel", "panics"} {
		set = append(set, Target{Name: name})
	}
	results := Run(context.Background(), set, 100*time.Millisecond,
		func(ctx context.Context, target Target) (string, error) {
			name := target.Name
			switch name {
			case "fails":
				return "", boom
			case "late":
				<-ctx.Done()
				time.Sleep(50 * time.Millisecond)
				return "late", ctx.Err()
			case "honours-cancel":
				<-ctx.Done()
				return "", ctx.Err()
			case "panics":
				panic("oops")
			}
			return "answer of " + name, nil
		})
	if len(results) != 5 {
		t.Fatalf("got %d results, want 5", len(results))
	}
	for i, want := range []struct {
		name  string
		value string
		err   error
	}{
		{"ok", "answer of ok", nil},
		{"fails", "", boom},
		{"late", "late", ErrDeadline},
		{"honours-cancel", "", ErrDeadline},
		{"panics", "", nil},
	} {
		r := results[i]
		if r.Target.Name != want.name || r.Value != want.value {
			t.Errorf("result %d = %+v, want context %s value %q", i, r, want.name, want.value)
		}
		switch {
		case want.name == "panics":
			if r.Err == nil {
				t.Errorf("%s: want an error from the panic", want.name)
			}
		case want.err == nil && r.Err != nil, want.err != nil && !errors.Is(r.Err, want.err):
			t.Errorf("%s: error %v, want %v", want.name, r.Err, want.err)
		}
	}
}

func TestPartialError(t *testing.T) {
	for _, tc := range []struct {
		e    PartialError
		want string
	}{
		{PartialError{Failed: 1, Total: 4}, "1 of 4 contexts failed (named above); the others were answered"},
		{PartialError{Failed: 2, Total: 2}, "every context failed (2 of 2, named above)"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}

func TestFailures(t *testing.T) {
	var errOut bytes.Buffer
	s := Set{Targets: []Target{{Name: "a"}, {Name: "b"}}, Missing: []string{"gone"}, Several: true}
	f := s.Failures(&errOut)
	f.Add("b", errors.New("connection refused"))
	var partial *PartialError
	if err := f.Err(); !errors.As(err, &partial) || partial.Failed != 2 || partial.Total != 3 || f.Count() != 2 {
		t.Errorf("Err() = %v (count %d), want 2 of 3 contexts failed", err, f.Count())
	}
	if want := "error: context gone: not in the kubeconfig\nerror: context b: connection refused\n"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	if err := (Set{Targets: []Target{{Name: "a"}}}).Failures(&errOut).Err(); err != nil {
		t.Errorf("no failure: Err() = %v", err)
	}
}
