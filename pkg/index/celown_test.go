package index

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestOwnCountsApart: a copy of a computed index from Own counts its
// failures apart from the original, and computes the same values.
func TestOwnCountsApart(t *testing.T) {
	c, err := ParseCustom(`half=string(100 / int(object.metadata.labels["n"]))`)
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet(c)
	if err != nil {
		t.Fatal(err)
	}
	def, err := set.Lookup("half")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := set.Lookup("node")
	if err != nil {
		t.Fatal(err)
	}
	own := Own([]Definition{def, plain})
	if own[0].Expr == def.Expr || own[1].Expr != nil {
		t.Fatalf("Own gave the CEL index the same guard, or the built-in one a guard")
	}
	zero := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "z", Labels: map[string]string{"n": "0"}}}
	four := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "f", Labels: map[string]string{"n": "4"}}}
	_ = Values(own[0], zero) // division by zero: a failure of the copy
	if got := Values(own[0], four); len(got) != 1 || got[0] != "25" {
		t.Errorf("the copy's values = %q, want 25", got)
	}
	if got := Values(def, four); len(got) != 1 || got[0] != "25" {
		t.Errorf("the original's values = %q, want 25", got)
	}
	if n := own[0].Expr.Count(); n != 1 {
		t.Errorf("the copy counted %d failures, want 1", n)
	}
	if n := def.Expr.Count(); n != 0 {
		t.Errorf("the original counted %d failures, want 0: the copy's are its own", n)
	}
}
