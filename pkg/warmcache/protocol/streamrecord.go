package protocol

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// A Stream's answer is a sequence of records, each a StreamEvent and the
// bytes of its object: the event's length as a uvarint, the event in
// JSON, the object's length as a uvarint, and the object, in protobuf when
// the event says so (a Go type of the kubernetes scheme) and in JSON
// otherwise. Objects stay out of the event's JSON: a pod decodes from
// protobuf several times faster than from JSON.

// maxStreamRecord bounds an event's or an object's length: a larger one is
// a protocol error, so a broken peer cannot make the reader allocate
// without bound.
const maxStreamRecord = 64 << 20

// WriteStreamRecord writes ev and its object (nil for none) as one record,
// in two writes (the object is not copied): a caller that shares w with
// other writers holds it across the call.
func WriteStreamRecord(w io.Writer, ev StreamEvent, object []byte) error {
	header, ok := objectHeaders().encoded[ev]
	if !ok {
		var err error
		if header, err = json.Marshal(ev); err != nil {
			return fmt.Errorf("encoding a stream event: %w", err)
		}
	}
	var n [binary.MaxVarintLen64]byte
	buf := make([]byte, 0, 2*len(n)+len(header))
	buf = append(buf, n[:binary.PutUvarint(n[:], uint64(len(header)))]...)
	buf = append(buf, header...)
	buf = append(buf, n[:binary.PutUvarint(n[:], uint64(len(object)))]...)
	if _, err := w.Write(buf); err != nil || len(object) == 0 {
		return err
	}
	_, err := w.Write(object)
	return err
}

// headers are the JSON encodings of the events that carry objects (each
// type, in protobuf or not, a delete's final state unknown or not), which
// nearly every record has: written and read without encoding/json.
type headers struct {
	encoded map[StreamEvent][]byte
	decoded map[string]StreamEvent
}

var objectHeaders = sync.OnceValue(func() headers {
	h := headers{encoded: map[StreamEvent][]byte{}, decoded: map[string]StreamEvent{}}
	for _, typ := range []string{StreamAdded, StreamModified, StreamDeleted} {
		for _, proto := range []bool{false, true} {
			for _, unknown := range []bool{false, true} {
				ev := StreamEvent{Type: typ, Proto: proto, FinalStateUnknown: unknown}
				b, err := json.Marshal(ev)
				if err != nil {
					panic(err)
				}
				h.encoded[ev], h.decoded[string(b)] = b, ev
			}
		}
	}
	return h
})

// ReadStreamRecord reads one record. The object is read into buf when it
// fits, into a new slice otherwise: its bytes are valid until buf is
// given again. It returns io.EOF when the stream ends before a record
// begins, io.ErrUnexpectedEOF inside one.
func ReadStreamRecord(r *bufio.Reader, buf []byte) (StreamEvent, []byte, error) {
	var ev StreamEvent
	header, err := readChunk(r, nil)
	if err != nil {
		return ev, nil, err
	}
	if known, ok := objectHeaders().decoded[string(header)]; ok {
		ev = known
	} else if err := json.Unmarshal(header, &ev); err != nil {
		return ev, nil, fmt.Errorf("decoding a stream event: %w", err)
	}
	object, err := readChunk(r, buf)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return ev, object, err
}

// readChunk reads a uvarint length and that many bytes, into buf when it
// fits.
func readChunk(r *bufio.Reader, buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > maxStreamRecord {
		return nil, fmt.Errorf("a stream record of %d bytes exceeds the limit of %d", n, maxStreamRecord)
	}
	b := buf[:0]
	if uint64(cap(b)) < n {
		b = make([]byte, n)
	}
	b = b[:n]
	if _, err := io.ReadFull(r, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}
