package protocol

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		typ     FrameType
		payload []byte
	}{
		{"empty", FrameStdout, nil},
		{"bytes", FrameStderr, []byte("No resources found\n")},
		{"binary", FrameStdout, []byte{0, 1, 2, 255}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteFrame(&buf, tt.typ, tt.payload); err != nil {
				t.Fatal(err)
			}
			typ, payload, err := ReadFrame(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if typ != tt.typ || !bytes.Equal(payload, tt.payload) {
				t.Errorf("ReadFrame = %c %q, want %c %q", typ, payload, tt.typ, tt.payload)
			}
		})
	}
}

func TestReadFrameErrors(t *testing.T) {
	if _, _, err := ReadFrame(bytes.NewReader(nil)); !errors.Is(err, io.EOF) {
		t.Errorf("ReadFrame(empty) error = %v, want io.EOF", err)
	}
	var buf bytes.Buffer
	if err := WriteFrame(&buf, FrameStdout, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	truncated := buf.Bytes()[:buf.Len()-2]
	if _, _, err := ReadFrame(bytes.NewReader(truncated)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("ReadFrame(truncated) error = %v, want io.ErrUnexpectedEOF", err)
	}
	huge := []byte{byte(FrameStdout), 0xff, 0xff, 0xff, 0xff}
	if _, _, err := ReadFrame(bytes.NewReader(huge)); err == nil {
		t.Error("ReadFrame(4 GiB length) succeeded, want an error")
	}
}

func TestReadJSONChecksType(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, FrameHello, Hello{Version: Version, Pid: 42}); err != nil {
		t.Fatal(err)
	}
	var exit Exit
	if err := ReadJSON(bytes.NewReader(buf.Bytes()), FrameExit, &exit); err == nil {
		t.Error("ReadJSON(hello as exit) succeeded, want an error")
	}
	var hello Hello
	if err := ReadJSON(bytes.NewReader(buf.Bytes()), FrameHello, &hello); err != nil {
		t.Fatal(err)
	}
	if hello.Version != Version || hello.Pid != 42 {
		t.Errorf("ReadJSON = %+v, want version %d pid 42", hello, Version)
	}
}
