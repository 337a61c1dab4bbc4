package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The lines of one write of a target go out together: two targets writing
// YAML documents at once never interleave their lines.
func TestLinePrefixerKeepsWritesWhole(t *testing.T) {
	var out bytes.Buffer
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		w := &LinePrefixer{Mu: &mu, W: &out}
		wg.Go(func() {
			for i := range 200 {
				fmt.Fprintf(w, "---\ncontext: %q\nobject:\n  name: %s-%d\ntype: ADDED\n", name, name, i)
			}
			w.Flush()
		})
	}
	wg.Wait()
	docs := strings.Split(strings.TrimPrefix(out.String(), "---\n"), "\n---\n")
	if len(docs) != 400 {
		t.Fatalf("%d documents, want 400", len(docs))
	}
	for _, d := range docs {
		lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
		if len(lines) != 4 || lines[1] != "object:" || lines[3] != "type: ADDED" ||
			lines[0] != `context: "`+strings.TrimPrefix(lines[2], "  name: ")[:1]+`"` {
			t.Fatalf("document interleaved:\n%s", d)
		}
	}
	// An unfinished line waits for its end; Prefix changes each line.
	out.Reset()
	w := &LinePrefixer{Mu: &mu, W: &out, Prefix: func(line []byte) []byte { return append([]byte("c "), line...) }}
	fmt.Fprint(w, "ADDED pod/x")
	if out.Len() != 0 {
		t.Fatalf("an unfinished line was written: %q", out.String())
	}
	fmt.Fprint(w, "\n")
	w.Flush()
	if out.String() != "c ADDED pod/x\n" {
		t.Errorf("got %q, want %q", out.String(), "c ADDED pod/x\n")
	}
}

// noProgress is a Watching that shows nothing.
type noProgress struct{}

func (noProgress) Begin(ctx context.Context, _ string) context.Context { return ctx }
func (noProgress) Done(string, error)                                  {}
func (noProgress) End()                                                {}
func (noProgress) Above(write func())                                  { write() }

// TestWatch runs a watch of one target and of several: one target writes
// its stderr as it is and its error is the command's; of several, each
// stderr line names its context, a failed context is named once, and the
// error is a *PartialError.
func TestWatch(t *testing.T) {
	watch := func(_ context.Context, tg Target, errOut io.Writer) error {
		fmt.Fprintf(errOut, "synced %s\n", tg.Name)
		if tg.Name == "b" {
			return errors.New("forbidden")
		}
		return nil
	}
	var mu sync.Mutex
	var out bytes.Buffer
	one := Set{Targets: []Target{{Name: "b"}}}
	if err := Watch(context.Background(), one, noProgress{}, &mu, &out, watch); err == nil || err.Error() != "forbidden" {
		t.Errorf("Watch(one) = %v, want forbidden", err)
	}
	if out.String() != "synced b\n" {
		t.Errorf("Watch(one) wrote %q, want %q", out.String(), "synced b\n")
	}
	out.Reset()
	several := Set{Targets: []Target{{Name: "a"}, {Name: "b"}}, Several: true}
	err := Watch(context.Background(), several, noProgress{}, &mu, &out, watch)
	var partial *PartialError
	if !errors.As(err, &partial) || partial.Failed != 1 || partial.Total != 2 {
		t.Errorf("Watch(several) = %v, want 1 of 2 contexts failed", err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	slices.Sort(lines)
	want := []string{"context a: synced a", "context b: synced b", "error: context b: forbidden"}
	if !slices.Equal(lines, want) {
		t.Errorf("Watch(several) wrote %q, want %q in some order", lines, want)
	}
}
