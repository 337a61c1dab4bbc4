package protoskip

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
)

// errMalformed is the error of bytes that are not a protobuf message.
var errMalformed = errors.New("malformed protobuf message")

// maxDepth bounds the nesting the filter follows, like the protobuf
// runtime's own recursion limit.
const maxDepth = 100

// filterMessage appends to out the fields of msg that f keeps, with each
// kept sub-message filtered in turn, and returns the extended slice. The
// result is never longer than msg; bytes of kept fields are copied as they
// are, and only the length prefixes of filtered sub-messages are written
// anew. A field f drops is skipped without being decoded. Of a map whose
// keys f names, the entries of other keys are dropped; when that drops
// every entry, an empty entry (key "", zero value) is written in their
// place, so that the map is not nil where the whole map would not be.
func filterMessage(out, msg []byte, f *filter, depth int) ([]byte, error) {
	if depth > maxDepth {
		return out, errMalformed
	}
	var maps mapStates
	for len(msg) > 0 {
		num, typ, tagLen := protowire.ConsumeTag(msg)
		if tagLen < 0 {
			return out, errMalformed
		}
		var value []byte
		valueLen := 0
		if typ == protowire.BytesType {
			value, valueLen = protowire.ConsumeBytes(msg[tagLen:])
		} else {
			valueLen = protowire.ConsumeFieldValue(num, typ, msg[tagLen:])
		}
		if valueLen < 0 {
			return out, errMalformed
		}
		field := msg[:tagLen+valueLen]
		msg = msg[tagLen+valueLen:]
		ff := f.fieldOf(num)
		keep, sub := ff.keep, ff.sub
		switch {
		case !keep:
		case ff.keys != nil && typ == protowire.BytesType:
			// A map entry: kept whole if its key is one of the keys.
			key, ok := entryKey(value)
			if !ok {
				return out, errMalformed
			}
			kept := ff.keys[string(key)]
			if kept {
				out = append(out, field...)
			}
			maps.saw(num, field[:tagLen], kept)
		case sub == nil || typ != protowire.BytesType:
			// Kept whole. A sub-filter on a field that is not length
			// delimited is the generated Unmarshal's error to report.
			out = append(out, field...)
		default:
			var err error
			if out, err = appendFiltered(out, field[:tagLen], value, sub, depth+1); err != nil {
				return out, err
			}
		}
	}
	return maps.appendEmptied(out), nil
}

// mapStates follows, in one message, the map fields whose entries are
// filtered by key: whether any entry of each was kept.
type mapStates struct {
	fields []mapState
	small  [4]mapState
}

type mapState struct {
	num  protowire.Number
	tag  []byte
	kept bool
}

// saw records an entry of map field num (tag is the field's tag bytes),
// kept or not.
func (m *mapStates) saw(num protowire.Number, tag []byte, kept bool) {
	for i := range m.fields {
		if m.fields[i].num == num {
			m.fields[i].kept = m.fields[i].kept || kept
			return
		}
	}
	if m.fields == nil {
		m.fields = m.small[:0]
	}
	m.fields = append(m.fields, mapState{num: num, tag: tag, kept: kept})
}

// appendEmptied appends an empty entry for each map of which no entry was
// kept: no longer than the entries dropped, each at least its tag and a
// length byte.
func (m *mapStates) appendEmptied(out []byte) []byte {
	for _, st := range m.fields {
		if !st.kept {
			out = append(out, st.tag...)
			out = append(out, 0)
		}
	}
	return out
}

// appendFiltered appends tag, then value filtered by f with its length
// prefix. The filtered bytes are written where a one-byte prefix would end
// and moved up once their length is known, so no scratch buffer is needed.
func appendFiltered(out, tag, value []byte, f *filter, depth int) ([]byte, error) {
	out = append(out, tag...)
	start := len(out)
	out = append(out, 0)
	out, err := filterMessage(out, value, f, depth)
	if err != nil {
		return out, err
	}
	n := len(out) - start - 1
	prefix := protowire.SizeVarint(uint64(n))
	if prefix > 1 {
		out = append(out, make([]byte, prefix-1)...)
		copy(out[start+prefix:], out[start+1:start+1+n])
	}
	protowire.AppendVarint(out[start:start], uint64(n))
	return out, nil
}

// entryKey returns the key (field 1) of the map entry message entry, empty
// when it has none; false when entry is not a message.
func entryKey(entry []byte) ([]byte, bool) {
	var key []byte
	for len(entry) > 0 {
		num, typ, n := protowire.ConsumeTag(entry)
		if n < 0 {
			return nil, false
		}
		entry = entry[n:]
		if num == 1 && typ == protowire.BytesType {
			value, n := protowire.ConsumeBytes(entry)
			if n < 0 {
				return nil, false
			}
			key, entry = value, entry[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, entry)
		if n < 0 {
			return nil, false
		}
		entry = entry[n:]
	}
	return key, true
}
