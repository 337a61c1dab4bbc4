package protoskip

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ErrNotProtobuf is the error of DecodeList for a body that does not start
// with the Kubernetes protobuf envelope; nothing of it has been consumed.
var ErrNotProtobuf = errors.New("the list body is not Kubernetes protobuf")

// MaxItemBytes bounds the size of one item of a list DecodeList reads: the
// API server stores no object near it, and a body that claims more is
// refused rather than allocated.
const MaxItemBytes = 64 << 20

// maxSmallField bounds the fields of a list body DecodeList reads whole
// besides its items: the envelope's type and content fields and the list's
// metadata.
const maxSmallField = 1 << 20

// DecodeList reads from r the Kubernetes protobuf body of a list whose Go
// type is listType (a struct or a pointer to one with "metadata" and
// "items" fields, as every built-in list has) one item at a time: each
// item's bytes, filtered as plan keeps them (nil: whole objects), are
// unmarshalled into an object newItem returns and handed to each, then
// dropped. It returns the list's metadata. Besides what each keeps, it
// holds one item's bytes at a time, at most MaxItemBytes.
//
// A body that does not start with the envelope's magic gives ErrNotProtobuf
// with nothing read past r's buffer. An error of each stops the read and is
// returned as it is; any other error names what of the body is wrong.
func DecodeList(r *bufio.Reader, listType reflect.Type, plan *Plan, newItem func() runtime.Object, each func(runtime.Object) error) (metav1.ListMeta, error) {
	var meta metav1.ListMeta
	prefix, err := r.Peek(len(envelopePrefix))
	if err != nil || string(prefix) != string(envelopePrefix) {
		return meta, ErrNotProtobuf
	}
	if _, err := r.Discard(len(envelopePrefix)); err != nil {
		return meta, err
	}
	if listType.Kind() == reflect.Pointer {
		listType = listType.Elem()
	}
	fields := protoFields(listType)
	metaField, okMeta := fields["metadata"]
	itemsField, okItems := fields["items"]
	if !okMeta || !okItems || itemsField.message == nil {
		return meta, fmt.Errorf("%s is not a list type", listType)
	}
	var itemFilter *filter
	if plan != nil {
		itemFilter = plan.filterFor(itemsField.message)
	}
	d := &listDecoder{r: r, limit: -1}
	raws := 0
	for {
		num, typ, err := d.tag()
		if err == io.EOF {
			break
		}
		if err != nil {
			return meta, err
		}
		if typ != protowire.BytesType {
			if err := d.skip(typ); err != nil {
				return meta, err
			}
			continue
		}
		n, err := d.length(-1)
		if err != nil {
			return meta, err
		}
		switch num {
		case unknownRaw:
			raws++
			if raws > 1 {
				return meta, fmt.Errorf("%w: the envelope holds more than one object", errMalformed)
			}
			d.limit = int64(n)
			err = d.items(metaField.num, itemsField.num, &meta, itemFilter, newItem, each)
			d.limit = -1
			if err != nil {
				return meta, err
			}
		case unknownContentEncoding:
			value, err := d.small(n)
			if err != nil {
				return meta, err
			}
			if len(value) > 0 {
				return meta, fmt.Errorf("the list body has content encoding %q, which is not supported", value)
			}
		default:
			if err := d.discard(n); err != nil {
				return meta, err
			}
		}
	}
	if raws == 0 {
		return meta, fmt.Errorf("%w: the envelope holds no object", errMalformed)
	}
	return meta, nil
}

// unknownContentEncoding is runtime.Unknown's ContentEncoding field.
const unknownContentEncoding protowire.Number = 3

// listDecoder reads a protobuf message from a stream. limit, when not
// negative, is how many bytes of the current message remain.
type listDecoder struct {
	r     *bufio.Reader
	limit int64
	buf   []byte // one item's bytes, reused
	out   []byte // one item's filtered bytes, reused
	// read counts the bytes ReadByte returns.
	varintBytes int
}

// ReadByte reads one byte for binary.ReadUvarint, counting it.
func (d *listDecoder) ReadByte() (byte, error) {
	b, err := d.r.ReadByte()
	if err == nil {
		d.varintBytes++
	}
	return b, err
}

// items reads a list message of limit bytes: its metadata into meta, each
// of its items through filter (nil: whole) to each.
func (d *listDecoder) items(metaNum, itemsNum protowire.Number, meta *metav1.ListMeta, f *filter, newItem func() runtime.Object, each func(runtime.Object) error) error {
	for index := 0; d.limit > 0; {
		num, typ, err := d.tag()
		if err != nil {
			return err
		}
		if typ != protowire.BytesType {
			if err := d.skip(typ); err != nil {
				return err
			}
			continue
		}
		n, err := d.length(MaxItemBytes)
		if err != nil {
			return err
		}
		switch num {
		case metaNum:
			value, err := d.small(n)
			if err != nil {
				return err
			}
			if err := meta.Unmarshal(value); err != nil {
				return fmt.Errorf("the list's metadata: %w", err)
			}
		case itemsNum:
			if err := d.item(index, n, f, newItem, each); err != nil {
				return err
			}
			index++
		default:
			if err := d.discard(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// item reads the n bytes of the item at index and hands it to each.
func (d *listDecoder) item(index, n int, f *filter, newItem func() runtime.Object, each func(runtime.Object) error) error {
	value, err := d.itemBytes(n)
	if err != nil {
		return err
	}
	if f != nil {
		var err error
		if d.out, err = filterMessage(d.out[:0], value, f, 0); err != nil {
			return fmt.Errorf("item %d: %w", index, err)
		}
		value = d.out
	}
	obj := newItem()
	u, ok := obj.(interface{ Unmarshal([]byte) error })
	if !ok {
		return fmt.Errorf("item %d: %T has no protobuf Unmarshal", index, obj)
	}
	if err := u.Unmarshal(value); err != nil {
		return fmt.Errorf("item %d: %w", index, err)
	}
	return each(obj)
}

// itemBytes reads the n bytes of an item into d.buf. A buffer larger than
// the largest item so far grows as the bytes arrive, so a body that claims
// a large item and ends early costs no more than it sent.
func (d *listDecoder) itemBytes(n int) ([]byte, error) {
	if n <= cap(d.buf) || n <= 1<<20 {
		if cap(d.buf) < n {
			d.buf = make([]byte, n)
		}
		value := d.buf[:n]
		return value, d.read(value)
	}
	if err := d.consumed(n); err != nil {
		return nil, err
	}
	b := bytes.NewBuffer(d.buf[:0])
	if _, err := io.CopyN(b, d.r, int64(n)); err != nil {
		return nil, truncated(err)
	}
	d.buf = b.Bytes()
	return d.buf, nil
}

// tag reads a field's tag; io.EOF only where a message may end.
func (d *listDecoder) tag() (protowire.Number, protowire.Type, error) {
	if d.limit == 0 {
		return 0, 0, io.EOF
	}
	v, err := d.varint(true)
	if err != nil {
		return 0, 0, err
	}
	num, typ := protowire.DecodeTag(v)
	if num < protowire.MinValidNumber {
		return 0, 0, errMalformed
	}
	return num, typ, nil
}

// length reads a length prefix no larger than max (negative: no bound but
// the message's).
func (d *listDecoder) length(max int64) (int, error) {
	v, err := d.varint(false)
	if err != nil {
		return 0, err
	}
	if max >= 0 && v > uint64(max) {
		return 0, fmt.Errorf("a field of %d bytes is larger than the %d bytes allowed", v, max)
	}
	if v > uint64(1)<<62 || (d.limit >= 0 && int64(v) > d.limit) {
		return 0, fmt.Errorf("%w: a field of %d bytes runs past its message", errMalformed, v)
	}
	return int(v), nil
}

// skip skips the value of a field of wire type typ other than bytes.
func (d *listDecoder) skip(typ protowire.Type) error {
	switch typ {
	case protowire.VarintType:
		_, err := d.varint(false)
		return err
	case protowire.Fixed32Type:
		return d.discard(4)
	case protowire.Fixed64Type:
		return d.discard(8)
	default:
		return fmt.Errorf("%w: wire type %d", errMalformed, typ)
	}
}

// small reads a field of n bytes that is read whole (at most maxSmallField).
func (d *listDecoder) small(n int) ([]byte, error) {
	if n > maxSmallField {
		return nil, fmt.Errorf("a list field of %d bytes is larger than the %d bytes allowed", n, maxSmallField)
	}
	value := make([]byte, n)
	return value, d.read(value)
}

func (d *listDecoder) varint(atStart bool) (uint64, error) {
	d.varintBytes = 0
	v, err := binary.ReadUvarint(d)
	if err == io.EOF && atStart && d.varintBytes == 0 && d.limit < 0 {
		return 0, io.EOF
	}
	if err != nil {
		return 0, truncated(err)
	}
	return v, d.consumed(d.varintBytes)
}

func (d *listDecoder) read(p []byte) error {
	if err := d.consumed(len(p)); err != nil {
		return err
	}
	_, err := io.ReadFull(d.r, p)
	return truncated(err)
}

func (d *listDecoder) discard(n int) error {
	if err := d.consumed(n); err != nil {
		return err
	}
	_, err := d.r.Discard(n)
	return truncated(err)
}

// consumed counts n bytes against the current message's limit.
func (d *listDecoder) consumed(n int) error {
	if d.limit < 0 {
		return nil
	}
	if int64(n) > d.limit {
		return fmt.Errorf("%w: a field runs past its message", errMalformed)
	}
	d.limit -= int64(n)
	return nil
}

// truncated names a body that ended inside a field.
func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("the list body ended inside a field: %w", io.ErrUnexpectedEOF)
	}
	return err
}
