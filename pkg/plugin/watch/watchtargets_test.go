package watch

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// The lines of one write of a target go out together, each prefixed: two
// targets writing YAML documents at once never interleave their lines.
func TestLinePrefixerKeepsWritesWhole(t *testing.T) {
	var out bytes.Buffer
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		w := &LinePrefixer{Mu: &mu, W: &out, Prefix: WatchLinePrefix("yaml", name)}
		wg.Go(func() {
			for i := range 200 {
				fmt.Fprintf(w, "---\nobject:\n  name: %s-%d\ntype: ADDED\n", name, i)
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
			t.Fatalf("document interleaved or unprefixed:\n%s", d)
		}
	}
	// An unfinished line waits for its end.
	out.Reset()
	w := &LinePrefixer{Mu: &mu, W: &out, Prefix: WatchLinePrefix("", "c")}
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

func TestSplitGroupByContext(t *testing.T) {
	tests := []struct {
		name    string
		groupBy []string
		rest    []string
		at      int
		wantErr bool
	}{
		{"no context", []string{"node"}, []string{"node"}, -1, false},
		{"context alone", []string{"context"}, nil, 0, false},
		{"context second", []string{"node", " context", "label:app"}, []string{"node", "label:app"}, 1, false},
		{"twice", []string{"context", "context"}, nil, -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rest, at, err := splitGroupByContext(tt.groupBy)
			if (err != nil) != tt.wantErr {
				t.Fatalf("splitGroupByContext(%q) error = %v, want error %v", tt.groupBy, err, tt.wantErr)
			}
			if err == nil && (!reflect.DeepEqual(rest, tt.rest) || at != tt.at) {
				t.Errorf("splitGroupByContext(%q) = %q, %d, want %q, %d", tt.groupBy, rest, at, tt.rest, tt.at)
			}
		})
	}
}
