package engine

import (
	"bytes"
	"hash/maphash"
	"runtime"
	"sync"
	"weak"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fieldSets interns the fieldsV1 sets InternManagedFields keeps.
var fieldSets = newFieldsInterner()

// fieldsInterner hands out one shared *metav1.FieldsV1 per distinct set of
// bytes, for as long as any cached object holds it: the table refers to the
// sets weakly, by a hash of their bytes, and forgets a set once the garbage
// collector has freed it. It is safe for concurrent use; the sets it returns
// must never be mutated.
type fieldsInterner struct {
	mu   sync.Mutex
	seed maphash.Seed
	sets map[uint64]weak.Pointer[metav1.FieldsV1]
}

func newFieldsInterner() *fieldsInterner {
	return &fieldsInterner{seed: maphash.MakeSeed(), sets: map[uint64]weak.Pointer[metav1.FieldsV1]{}}
}

// intern returns the shared set with the bytes raw, making it (with a copy
// of raw) if there is none. A set whose hash is taken by other bytes is
// returned unshared.
func (in *fieldsInterner) intern(raw []byte) *metav1.FieldsV1 {
	h := maphash.Bytes(in.seed, raw)
	in.mu.Lock()
	defer in.mu.Unlock()
	wp, ok := in.sets[h]
	if ok {
		if f := wp.Value(); f != nil {
			if bytes.Equal(f.GetRawBytes(), raw) {
				return f
			}
			return metav1.NewFieldsV1(string(raw))
		}
	}
	f := metav1.NewFieldsV1(string(raw))
	in.sets[h] = weak.Make(f)
	runtime.AddCleanup(f, in.forget, h)
	return f
}

// forget removes the entry of hash h once its set is freed, unless a new set
// took its place meanwhile.
func (in *fieldsInterner) forget(h uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if wp, ok := in.sets[h]; ok && wp.Value() == nil {
		delete(in.sets, h)
	}
}

// size returns how many sets the table holds, freed ones not yet forgotten
// included.
func (in *fieldsInterner) size() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.sets)
}
