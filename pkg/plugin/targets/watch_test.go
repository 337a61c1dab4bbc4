package targets

import (
	"bytes"
	"fmt"
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
