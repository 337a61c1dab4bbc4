package expr

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestGuardCountsEachObjectOnce(t *testing.T) {
	p, err := Compile("--filter", "object.spec.noSuchField == 'x'", Predicate)
	if err != nil {
		t.Fatal(err)
	}
	g := NewGuard(p)
	pod := deploymentPod()
	for range 3 {
		if g.Match(context.Background(), pod, time.Now()) {
			t.Errorf("Match on a missing field = true, want false")
		}
	}
	if got := g.Count(); got != 1 {
		t.Errorf("Count after three failures on one pod = %d, want 1", got)
	}
	if err := g.Err(); err == nil || !strings.HasPrefix(err.Error(), "--filter: 1 object counted as false") {
		t.Errorf("Err() = %v, want the one line for one object", err)
	}
	if err := g.Fatal(); err != nil {
		t.Errorf("Fatal() after a missing field = %v, want nil", err)
	}
}

func TestGuardStopsAtCostLimit(t *testing.T) {
	p, err := CompileWithLimit("--until", "lists.range(1000).all(b, lists.range(1000).all(c, b + c >= 0))", Predicate, 10000)
	if err != nil {
		t.Fatal(err)
	}
	g := NewGuard(p)
	pod := deploymentPod()
	if g.Match(context.Background(), pod, time.Now()) {
		t.Fatalf("Match over the cost limit = true, want false")
	}
	err = g.Fatal()
	if err == nil || !strings.Contains(err.Error(), "--until: stopped: the expression exceeded CEL's cost limit on "+pod.Namespace+"/"+pod.Name) {
		t.Fatalf("Fatal() = %v, want the cost limit named with the object", err)
	}
	// Later evaluations do not run at all: a Program with no limit would
	// take seconds here.
	start := time.Now()
	for range 100 {
		g.Match(context.Background(), pod, time.Now())
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("100 Match calls after the cost limit took %s, want them skipped", d)
	}
}
