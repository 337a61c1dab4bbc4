package protoskip

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"
)

// envelopePrefix starts every protobuf body of the Kubernetes API: the
// magic bytes, then a runtime.Unknown.
var envelopePrefix = []byte{0x6b, 0x38, 0x73, 0x00}

// Field numbers of runtime.Unknown and of its TypeMeta.
const (
	unknownTypeMeta protowire.Number = 1
	unknownRaw      protowire.Number = 2
	typeMetaAPI     protowire.Number = 1
	typeMetaKind    protowire.Number = 2
)

// envelope is a k8s protobuf body split into the parts the filter needs.
type envelope struct {
	apiVersion, kind []byte
	// raw is the object's bytes (runtime.Unknown's Raw).
	raw []byte
}

// parseEnvelope reads data, which starts with envelopePrefix; it reports
// false for anything else, or for an envelope with no or several Raw
// fields, which it leaves to the wrapped serializer.
func parseEnvelope(data []byte) (envelope, bool) {
	if !bytes.HasPrefix(data, envelopePrefix) {
		return envelope{}, false
	}
	var env envelope
	raws := 0
	for msg := data[len(envelopePrefix):]; len(msg) > 0; {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return envelope{}, false
		}
		msg = msg[n:]
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, msg)
			if n < 0 {
				return envelope{}, false
			}
			msg = msg[n:]
			continue
		}
		value, n := protowire.ConsumeBytes(msg)
		if n < 0 {
			return envelope{}, false
		}
		msg = msg[n:]
		switch num {
		case unknownTypeMeta:
			if !parseTypeMeta(value, &env) {
				return envelope{}, false
			}
		case unknownRaw:
			env.raw = value
			raws++
		}
	}
	return env, raws == 1
}

// parseTypeMeta reads a TypeMeta message into env.
func parseTypeMeta(msg []byte, env *envelope) bool {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return false
		}
		msg = msg[n:]
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, msg)
			if n < 0 {
				return false
			}
			msg = msg[n:]
			continue
		}
		value, n := protowire.ConsumeBytes(msg)
		if n < 0 {
			return false
		}
		msg = msg[n:]
		switch num {
		case typeMetaAPI:
			env.apiVersion = value
		case typeMetaKind:
			env.kind = value
		}
	}
	return true
}

// filterEnvelope returns data, a body parseEnvelope accepted, with its Raw
// field filtered by f; every other field is copied as it is.
func filterEnvelope(data []byte, f *filter) ([]byte, error) {
	// One object (a watch event's) gets room for all of it, so that
	// keeping most of it costs no regrowth; a list, where what is kept is
	// usually a small part, lets append grow the buffer rather than
	// reserve the whole body's size.
	size := len(data)
	if size > 1<<20 {
		size /= 4
	}
	out := make([]byte, 0, size)
	out = append(out, envelopePrefix...)
	for msg := data[len(envelopePrefix):]; len(msg) > 0; {
		num, typ, tagLen := protowire.ConsumeTag(msg)
		if tagLen < 0 {
			return nil, errMalformed
		}
		valueLen := protowire.ConsumeFieldValue(num, typ, msg[tagLen:])
		if valueLen < 0 {
			return nil, errMalformed
		}
		field := msg[:tagLen+valueLen]
		msg = msg[tagLen+valueLen:]
		if num != unknownRaw || typ != protowire.BytesType {
			out = append(out, field...)
			continue
		}
		value, n := protowire.ConsumeBytes(field[tagLen:])
		if n < 0 {
			return nil, errMalformed
		}
		var err error
		if out, err = appendFiltered(out, field[:tagLen], value, f, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}
