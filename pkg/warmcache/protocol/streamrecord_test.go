package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

func TestStreamRecordRoundTrip(t *testing.T) {
	records := []struct {
		ev     StreamEvent
		object []byte
	}{
		{StreamEvent{Type: StreamAdded, Proto: true}, bytes.Repeat([]byte{1, 2, 3}, 100)},
		{StreamEvent{Type: StreamListed}, nil},
		{StreamEvent{Type: StreamModified}, []byte(`{"kind":"Widget"}`)},
		{StreamEvent{Type: StreamDeleted, Proto: true, FinalStateUnknown: true}, []byte{9}},
		{StreamEvent{Type: StreamWarning, Message: "deprecated"}, nil},
	}
	var out bytes.Buffer
	for _, r := range records {
		if err := WriteStreamRecord(&out, r.ev, r.object); err != nil {
			t.Fatal(err)
		}
	}
	br := bufio.NewReader(&out)
	var buf []byte
	for i, r := range records {
		ev, object, err := ReadStreamRecord(br, buf)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if ev != r.ev || !bytes.Equal(object, r.object) {
			t.Errorf("record %d = %+v %q, want %+v %q", i, ev, object, r.ev, r.object)
		}
		if cap(object) > cap(buf) {
			buf = object
		}
	}
	if _, _, err := ReadStreamRecord(br, buf); err != io.EOF {
		t.Errorf("after the last record: %v, want io.EOF", err)
	}
}

// TestStreamRecordReusesBuffer checks that an object that fits the buffer
// given is read into it, and a larger one into a slice of its own.
func TestStreamRecordReusesBuffer(t *testing.T) {
	var out bytes.Buffer
	for _, object := range [][]byte{[]byte("small"), bytes.Repeat([]byte("x"), 64)} {
		if err := WriteStreamRecord(&out, StreamEvent{Type: StreamAdded}, object); err != nil {
			t.Fatal(err)
		}
	}
	br := bufio.NewReader(&out)
	buf := make([]byte, 16)
	_, small, err := ReadStreamRecord(br, buf)
	if err != nil {
		t.Fatal(err)
	}
	if &small[0] != &buf[0] {
		t.Errorf("an object of %d bytes was not read into a buffer of %d", len(small), cap(buf))
	}
	_, large, err := ReadStreamRecord(br, buf)
	if err != nil {
		t.Fatal(err)
	}
	if &large[0] == &buf[0] {
		t.Errorf("an object of %d bytes shares a buffer of %d", len(large), cap(buf))
	}
	if !bytes.Equal(large, bytes.Repeat([]byte("x"), 64)) {
		t.Errorf("the larger object = %q", large)
	}
}

func TestStreamRecordTruncated(t *testing.T) {
	var out bytes.Buffer
	if err := WriteStreamRecord(&out, StreamEvent{Type: StreamAdded}, []byte("object")); err != nil {
		t.Fatal(err)
	}
	cut := out.Bytes()[:out.Len()-2]
	if _, _, err := ReadStreamRecord(bufio.NewReader(bytes.NewReader(cut)), nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a cut record: %v, want io.ErrUnexpectedEOF", err)
	}
}

// TestObjectHeaders checks that the events read and written without
// encoding/json are what encoding/json makes of them.
func TestObjectHeaders(t *testing.T) {
	h := objectHeaders()
	if len(h.encoded) != 12 || len(h.decoded) != 12 {
		t.Fatalf("%d encoded and %d decoded headers, want 12 each", len(h.encoded), len(h.decoded))
	}
	for ev, b := range h.encoded {
		var got StreamEvent
		if err := json.Unmarshal(b, &got); err != nil || got != ev {
			t.Errorf("json.Unmarshal(%s) = %+v, %v, want %+v", b, got, err, ev)
		}
		if h.decoded[string(b)] != ev {
			t.Errorf("decoded[%s] = %+v, want %+v", b, h.decoded[string(b)], ev)
		}
	}
}
