package server

import (
	"encoding/json"
	"sync"
)

// encodedLimit is how many encoded objects an encodedObjects keeps: enough
// for the streams of one type to find the bytes of each change another
// stream encoded, while their queues are not far apart.
const encodedLimit = 512

// encodedObjects keeps the encoding of the objects the pool's streams sent
// last, so that streams of the same changes (several watches of one type)
// encode each object once and share its bytes. An object of the cache is
// never changed (a change is a new object), so its bytes stay its
// encoding; only objects of Go types (pointers, which encode in protobuf)
// are kept, by identity, the oldest dropped first. Safe for concurrent use.
type encodedObjects struct {
	mu    sync.Mutex
	bytes map[any]encodedObject
	// order holds the keys of bytes in the order they came, a ring whose
	// next slot to fill (and oldest key) is at next.
	order [encodedLimit]any
	next  int
}

// encodedObject is one object's encoding.
type encodedObject struct {
	raw   []byte
	proto bool
}

// protoMarshaler is an object of a Go type of the kubernetes scheme.
type protoMarshaler interface{ Marshal() ([]byte, error) }

// encode returns obj in protobuf when it is a Go type of the kubernetes
// scheme (proto set), in JSON otherwise; the bytes are shared and must not
// be changed.
func (e *encodedObjects) encode(obj any) (raw []byte, proto bool, err error) {
	m, ok := obj.(protoMarshaler)
	if !ok {
		raw, err = json.Marshal(obj)
		return raw, false, err
	}
	e.mu.Lock()
	if enc, ok := e.bytes[obj]; ok {
		e.mu.Unlock()
		return enc.raw, enc.proto, nil
	}
	e.mu.Unlock()
	if raw, err = m.Marshal(); err != nil {
		return nil, false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bytes == nil {
		e.bytes = map[any]encodedObject{}
	}
	if _, ok := e.bytes[obj]; !ok {
		if oldest := e.order[e.next]; oldest != nil {
			delete(e.bytes, oldest)
		}
		e.bytes[obj] = encodedObject{raw: raw, proto: true}
		e.order[e.next] = obj
		e.next = (e.next + 1) % encodedLimit
	}
	return raw, true, nil
}
