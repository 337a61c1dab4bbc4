package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"sync"
	"testing"
)

// recordedProgress records the calls of Answer on a Progress.
type recordedProgress struct {
	mu    sync.Mutex
	calls []string
}

func (p *recordedProgress) record(call string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, call)
}

func (p *recordedProgress) Begin(ctx context.Context, name string) context.Context {
	p.record("begin " + name)
	return ctx
}

func (p *recordedProgress) Done(name string, err error) {
	p.record(fmt.Sprintf("done %s %v", name, err))
}

func (p *recordedProgress) End() { p.record("end") }

func TestAnswers(t *testing.T) {
	refused := errors.New("refused")
	answer := func(_ context.Context, t Target, errOut io.Writer) (string, error) {
		fmt.Fprintf(errOut, "note of %s\n", t.Name)
		if t.Name == "b" {
			return "", refused
		}
		return "answer of " + t.Name, nil
	}
	set := Set{Targets: []Target{{Name: "a"}, {Name: "b"}, {Name: "c"}}, Missing: []string{"gone"}, Several: true}
	var errOut bytes.Buffer
	p := &recordedProgress{}
	answers, failures, err := Answers(set, Answer(context.Background(), set, p, 0, &errOut, answer), &errOut)
	if err != nil {
		t.Fatalf("Answers: error %v, want none (failures are named)", err)
	}
	if want := []string{"answer of a", "answer of c"}; !reflect.DeepEqual(answers, want) {
		t.Errorf("answers %q, want %q", answers, want)
	}
	want := "error: context gone: not in the kubeconfig\ncontext a: note of a\ncontext b: note of b\nerror: context b: refused\ncontext c: note of c\n"
	if errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	var partial *PartialError
	if err := failures.Err(); !errors.As(err, &partial) || partial.Failed != 2 || partial.Total != 4 {
		t.Errorf("failures.Err() = %v, want 2 of 4 contexts failed", err)
	}
	calls := p.calls[:len(p.calls)-1]
	sort.Strings(calls)
	wantCalls := []string{"begin a", "begin b", "begin c", "done a <nil>", "done b refused", "done c <nil>"}
	if !reflect.DeepEqual(calls, wantCalls) || p.calls[len(p.calls)-1] != "end" {
		t.Errorf("progress calls %q, want %q in any order, then end", p.calls, wantCalls)
	}

	// One target writes to the command's stderr, and its error is the
	// command's.
	errOut.Reset()
	one := Set{Targets: []Target{{Name: "b"}}}
	if _, _, err := Answers(one, Answer(context.Background(), one, nil, 0, &errOut, answer), &errOut); err != refused {
		t.Errorf("one target: error %v, want %v", err, refused)
	}
	if errOut.String() != "note of b\n" {
		t.Errorf("one target: stderr %q, want its line unprefixed", errOut.String())
	}
}
