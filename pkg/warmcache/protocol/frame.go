package protocol

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Version is the protocol version. A client that gets a Hello with another
// version does not send a Request: it answers the command itself.
const Version = 6

// FrameType says what a frame's payload is.
type FrameType byte

// Frame types.
const (
	// FrameHello is the server's first frame: a JSON Hello.
	FrameHello FrameType = 'H'
	// FrameRequest is the client's one frame: a JSON Request.
	FrameRequest FrameType = 'Q'
	// FrameStdout and FrameStderr carry raw bytes of the command's output.
	FrameStdout FrameType = 'O'
	FrameStderr FrameType = 'E'
	// FrameExit ends a Collect, Stream or Stop: a JSON Exit.
	FrameExit FrameType = 'X'
	// FrameFallback ends a request the cache declines, before any output: a
	// JSON Fallback. The client then answers the command itself.
	FrameFallback FrameType = 'F'
	// FrameStatus answers a Status request: a JSON Status.
	FrameStatus FrameType = 'S'
	// FrameHeartbeat, empty, is sent during a Collect or Stream every HeartbeatInterval,
	// so the client can tell a quiet watch from a cache that is gone.
	FrameHeartbeat FrameType = 'B'
)

// HeartbeatInterval is how often the server sends FrameHeartbeat during a
// Collect or Stream. A client that hears nothing for several intervals treats the cache
// as lost.
const HeartbeatInterval = 5 * time.Second

// MaxFrame bounds a frame's payload; a larger length is a protocol error,
// so a broken peer cannot make the reader allocate without bound.
const MaxFrame = 16 << 20

// WriteFrame writes one frame: its type, the payload's length as 4 bytes
// big-endian, and the payload.
func WriteFrame(w io.Writer, t FrameType, payload []byte) error {
	if len(payload) > MaxFrame {
		return fmt.Errorf("frame of %d bytes exceeds the limit of %d", len(payload), MaxFrame)
	}
	var header [5]byte
	header[0] = byte(t)
	binary.BigEndian.PutUint32(header[1:], uint32(len(payload)))
	if _, err := w.Write(header[:]); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// WriteJSON writes a frame whose payload is v as JSON.
func WriteJSON(w io.Writer, t FrameType, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding frame %c: %w", t, err)
	}
	return WriteFrame(w, t, b)
}

// ReadFrame reads one frame. It returns io.EOF when the stream ends before
// a frame begins, io.ErrUnexpectedEOF when it ends inside one.
func ReadFrame(r io.Reader) (FrameType, []byte, error) {
	var header [5]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(header[1:])
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("frame of %d bytes exceeds the limit of %d", n, MaxFrame)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return FrameType(header[0]), payload, nil
}

// ReadJSON reads one frame, checks that its type is want, and decodes its
// payload into v.
func ReadJSON(r io.Reader, want FrameType, v any) error {
	t, payload, err := ReadFrame(r)
	if err != nil {
		return err
	}
	if t != want {
		return fmt.Errorf("got frame %q, want %q", t, want)
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("decoding frame %c: %w", t, err)
	}
	return nil
}
