package engine

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// protoMessage is a value the generated protobuf code marshals.
type protoMessage interface{ Marshal() ([]byte, error) }

// values shares the parts of objects that repeat between objects of one
// template (probes, security contexts, tolerations, ports, env), from a
// table of at most maxSharedMaps values, emptied when full. Candidates are
// found by their protobuf bytes and shared only when reflect.DeepEqual to
// the shared value. It is safe for concurrent use; the values it returns
// must never be mutated.
var values = &valueInterner{}

type valueInterner struct {
	mu   sync.Mutex
	vals map[string]any
}

// share returns the shared value equal to v, whose key is key, or v itself
// (which it then shares).
func (in *valueInterner) share(key string, v any) any {
	in.mu.Lock()
	defer in.mu.Unlock()
	if shared, ok := in.vals[key]; ok {
		if reflect.DeepEqual(shared, v) {
			return shared
		}
		return v
	}
	if in.vals == nil || len(in.vals) >= maxSharedMaps {
		in.vals = map[string]any{}
	}
	in.vals[key] = v
	return v
}

// sharePtr replaces *p by the shared value equal to it; nil stays nil.
func sharePtr[T any, PT interface {
	*T
	protoMessage
}](p *PT) {
	sharePtrIn(values, p)
}

// sharePtrIn is sharePtr with the table in.
func sharePtrIn[T any, PT interface {
	*T
	protoMessage
}](in *valueInterner, p *PT) {
	if *p == nil {
		return
	}
	data, err := (*p).Marshal()
	if err != nil {
		return
	}
	key := reflect.TypeFor[T]().String() + "\x00" + string(data)
	if shared := in.share(key, *p).(PT); shared != *p {
		*p = shared
	}
}

// shareSlice replaces *p by the shared slice equal to it; nil and empty
// slices stay as they are. The shared slice's capacity is its length, so
// that an append to it never writes into another object's.
func shareSlice[E any, PE interface {
	*E
	protoMessage
}](p *[]E) {
	shareSliceIn[E, PE](values, p)
}

// shareSliceIn is shareSlice with the table in. A slice that becomes the
// shared one is first copied to a backing array of its own length when its
// capacity is larger (a decoder's appends leave up to twice the room), so
// that the spare room is not kept for as long as the slice is shared.
func shareSliceIn[E any, PE interface {
	*E
	protoMessage
}](in *valueInterner, p *[]E) {
	s := *p
	if len(s) == 0 {
		return
	}
	var key strings.Builder
	key.WriteString(reflect.TypeFor[E]().String())
	for i := range s {
		data, err := PE(&s[i]).Marshal()
		if err != nil {
			return
		}
		writeField(&key, string(data))
	}
	candidate := s[:len(s):len(s)]
	if cap(s) > len(s) {
		candidate = slices.Clip(slices.Clone(s))
	}
	shared := in.share(key.String(), candidate).([]E)
	if &shared[0] != &s[0] || cap(shared) != cap(s) {
		*p = shared
	}
}

// shareStrings is shareSlice for a slice of strings.
func shareStrings(p *[]string) {
	s := *p
	if len(s) == 0 {
		return
	}
	internStrings(s)
	var key strings.Builder
	key.WriteString("[]string" + strconv.Itoa(len(s)))
	for _, v := range s {
		writeField(&key, v)
	}
	shared := values.share(key.String(), s[:len(s):len(s)]).([]string)
	if &shared[0] != &s[0] || cap(shared) != cap(s) {
		*p = shared
	}
}
