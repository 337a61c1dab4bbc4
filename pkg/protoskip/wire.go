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
// anew. A field f drops is skipped without being decoded.
func filterMessage(out, msg []byte, f *filter, depth int) ([]byte, error) {
	if depth > maxDepth {
		return out, errMalformed
	}
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
		keep, sub := f.field(num)
		switch {
		case !keep:
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
	return out, nil
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
