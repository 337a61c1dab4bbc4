package diff

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// applyEdits checks that edits turn a into b: the equal and deleted lines
// spell a, the equal and inserted lines spell b, in order.
func applyEdits(t *testing.T, a, b []string, edits []edit) (changed int) {
	t.Helper()
	var gotA, gotB []string
	for _, e := range edits {
		switch e.kind {
		case editEqual:
			if a[e.a] != b[e.b] {
				t.Fatalf("edit %v pairs %q with %q", e, a[e.a], b[e.b])
			}
			gotA, gotB = append(gotA, a[e.a]), append(gotB, b[e.b])
		case editDelete:
			gotA = append(gotA, a[e.a])
			changed++
		case editInsert:
			gotB = append(gotB, b[e.b])
			changed++
		}
	}
	if strings.Join(gotA, "\n") != strings.Join(a, "\n") || strings.Join(gotB, "\n") != strings.Join(b, "\n") {
		t.Fatalf("diffLines(%q, %q) = %v, which does not spell both sides", a, b, edits)
	}
	return changed
}

// lcs returns the length of a longest common subsequence of a and b.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	for i := range a {
		cur := make([]int, len(b)+1)
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev = cur
	}
	return prev[len(b)]
}

func TestDiffLinesMinimal(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	randomLines := func() []string {
		l := make([]string, rng.Intn(12))
		for i := range l {
			l[i] = string(rune('a' + rng.Intn(4)))
		}
		return l
	}
	for i := 0; i < 2000; i++ {
		a, b := randomLines(), randomLines()
		t.Run(fmt.Sprintf("%q-%q", a, b), func(t *testing.T) {
			changed := applyEdits(t, a, b, diffLines(a, b))
			if want := len(a) + len(b) - 2*lcs(a, b); changed != want {
				t.Errorf("diffLines(%q, %q) changes %d lines, want %d", a, b, changed, want)
			}
		})
	}
}

func TestDiffLinesLarge(t *testing.T) {
	// Every line differs: far past maxDiffEdits, so the middle is replaced
	// whole, quickly.
	const n = 50000
	a, b := make([]string, n), make([]string, n)
	for i := range a {
		a[i] = fmt.Sprintf("old %d", i)
		b[i] = fmt.Sprintf("new %d", i)
	}
	a[0], b[0] = "same", "same"
	a[n-1], b[n-1] = "end", "end"
	if changed := applyEdits(t, a, b, diffLines(a, b)); changed != 2*(n-2) {
		t.Errorf("diffLines(%d lines, %d lines) changes %d lines, want %d", n, n, changed, 2*(n-2))
	}
	// A few changes in a large text stay minimal.
	c := append([]string(nil), a...)
	c[100], c[20000] = "changed", "changed"
	c = append(c[:30000], c[30001:]...)
	if changed := applyEdits(t, a, c, diffLines(a, c)); changed != 5 {
		t.Errorf("diffLines(3 edits in %d lines) changes %d lines, want 5", n, changed)
	}
}
