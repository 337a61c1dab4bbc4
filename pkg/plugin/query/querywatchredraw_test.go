package query

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
)

// A context whose watch fails leaves the answer that is redrawn, which is
// told so; one that ends without an error (Ctrl-C) stays in it.
func TestWatchOutputEnded(t *testing.T) {
	var out bytes.Buffer
	s := newWatchOutput(&out, []string{"a", "b"}, false, true, true)
	s.printers["a"], s.printers["b"] = &rowPrinter{}, &rowPrinter{}
	s.ended("a", nil)
	if s.printers["a"] == nil || len(s.changed) != 0 {
		t.Errorf("a context that ended without an error left the answer (printers %v, changed %d)", s.printers, len(s.changed))
	}
	s.ended("b", errors.New("connection refused"))
	if s.printers["b"] != nil || len(s.changed) != 1 {
		t.Errorf("a failed context stays in the answer (printers %v, changed %d), want it gone and the answer drawn again", s.printers, len(s.changed))
	}
}

// A target whose answer the shared output could not look up again
// (rowPrinter.fail) ends its watch with that error, printing no row of
// the changes that wait; one whose watch is ended (Ctrl-C, its engine
// failed) ends without one.
func TestWatchOutputRunEndsByFail(t *testing.T) {
	out, err := printing.ParseOutput("name")
	if err != nil {
		t.Fatal(err)
	}
	pods := &engine.Type{Mapping: &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
	}}
	pod := testpods.CPUPod("web-1", "web", "n1", "250m")
	for _, failed := range []bool{true, false} {
		var stdout bytes.Buffer
		s := newWatchOutput(&stdout, []string{"a"}, false, false, false)
		watching, cancel := context.WithCancel(t.Context())
		w := &running{o: &QueryOptions{}, cfg: queryPrintConfig{out: out}, queue: engine.NewQueue(0), changes: &watch.EventPrinter{}}
		ended := make(chan error, 1)
		go func() { ended <- s.run(watching, "a", w) }()
		<-s.ready
		s.mu.Lock()
		rp := s.printers["a"]
		s.mu.Unlock()
		w.queue.Push(&engine.Event{Type: engine.Modified, Resource: pods, Key: "shop/web-1", Old: pod, New: pod})
		want := errors.New("cost limit")
		if failed {
			rp.fail(want) // as the first answer is looked up
			close(s.printed)
		} else {
			close(s.printed)
			cancel()
			want = nil
		}
		if err := <-ended; err != want {
			t.Errorf("failed %v: run = %v, want %v", failed, err, want)
		}
		if failed && stdout.Len() > 0 {
			t.Errorf("a failed target printed %q", stdout.String())
		}
		cancel()
	}
}
