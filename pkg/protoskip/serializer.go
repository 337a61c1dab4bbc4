package protoskip

import (
	"io"
	"reflect"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Serializer is a protobuf serializer that decodes only what its Plan
// keeps. It filters the object's bytes and hands the rewritten envelope to
// the wrapped serializer, which does the rest; bodies it cannot filter (not
// protobuf, decoded into runtime.Unknown, of a kind it does not know,
// malformed) go to the wrapped serializer whole. Encode is the wrapped
// serializer's. It is safe for concurrent use if the wrapped serializer is.
type Serializer struct {
	base    runtime.Serializer
	plan    *Plan
	creater runtime.ObjectCreater

	types sync.Map // schema.GroupVersionKind → reflect.Type (nil: unknown)
	last  atomic.Pointer[lastKind]
}

var _ runtime.Serializer = &Serializer{}

// NewSerializer wraps base, the k8s protobuf serializer, to decode what
// plan keeps; creater tells the Go type of a kind when Decode is given no
// object to decode into.
func NewSerializer(base runtime.Serializer, plan *Plan, creater runtime.ObjectCreater) *Serializer {
	return &Serializer{base: base, plan: plan, creater: creater}
}

// Decode decodes data as the wrapped serializer does, after dropping the
// fields the plan does not keep.
func (s *Serializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if into == nil {
		if obj, gvk, ok := s.decodeNew(data, defaults); ok {
			return obj, gvk, nil
		}
	}
	if filtered, ok := s.filter(data, into); ok {
		data = filtered
	}
	return s.base.Decode(data, defaults, into)
}

// decodeNew decodes data into a new object of the kind its envelope
// names, as the wrapped serializer does when given no object to decode
// into (the objects of watch events), but unmarshals the filtered bytes
// straight into the new object: no rewritten envelope, no copy of it into
// a runtime.Unknown, no reset of an object just created. It reports false
// where the wrapped serializer is to decode data instead: an envelope
// without kind or version, a kind the creater does not know or the plan
// keeps whole, bytes that do not unmarshal (its error is the wrapped
// serializer's to give).
func (s *Serializer) decodeNew(data []byte, defaults *schema.GroupVersionKind) (runtime.Object, *schema.GroupVersionKind, bool) {
	env, ok := parseEnvelope(data)
	if !ok {
		return nil, nil, false
	}
	gv, err := schema.ParseGroupVersion(string(env.apiVersion))
	if err != nil {
		return nil, nil, false
	}
	actual := gv.WithKind(string(env.kind))
	if defaults != nil {
		// The wrapped serializer's defaulting of a missing kind or version.
		if actual.Kind == "" {
			actual.Kind = defaults.Kind
		}
		if actual.Version == "" && defaults.Version != "" {
			actual.Group, actual.Version = defaults.Group, defaults.Version
		}
	}
	if actual.Kind == "" || actual.Version == "" {
		return nil, nil, false
	}
	var typ reflect.Type
	if defaults == nil {
		typ = s.typeOfEnvelope(env)
	} else {
		typ = s.typeOf(actual)
	}
	if typ == nil {
		return nil, nil, false
	}
	f := s.plan.filterFor(typ)
	if f == nil {
		return nil, nil, false
	}
	raw, err := filterMessage(make([]byte, 0, len(env.raw)), env.raw, f, 0)
	if err != nil {
		return nil, nil, false
	}
	obj, err := s.creater.New(actual)
	if err != nil {
		return nil, nil, false
	}
	u, ok := obj.(interface{ Unmarshal([]byte) error })
	if !ok || u.Unmarshal(raw) != nil {
		return nil, nil, false
	}
	obj.GetObjectKind().SetGroupVersionKind(actual)
	return obj, &actual, true
}

// filter returns data with what the plan drops removed, or false to
// decode data as it is.
func (s *Serializer) filter(data []byte, into runtime.Object) ([]byte, bool) {
	if _, ok := into.(*runtime.Unknown); ok {
		return nil, false
	}
	env, ok := parseEnvelope(data)
	if !ok {
		return nil, false
	}
	var typ reflect.Type
	if into != nil {
		typ = reflect.TypeOf(into)
	} else {
		typ = s.typeOfEnvelope(env)
	}
	if typ == nil {
		return nil, false
	}
	f := s.plan.filterFor(typ)
	if f == nil {
		return nil, false
	}
	filtered, err := filterEnvelope(data, f)
	if err != nil {
		return nil, false
	}
	return filtered, true
}

// typeOfEnvelope returns the Go type of env's object, nil when it has no
// kind or the creater does not know it. The kind of the last object is
// remembered: a watch stream sends one kind.
func (s *Serializer) typeOfEnvelope(env envelope) reflect.Type {
	if last := s.last.Load(); last != nil && string(env.apiVersion) == last.apiVersion && string(env.kind) == last.kind {
		return last.typ
	}
	gv, err := schema.ParseGroupVersion(string(env.apiVersion))
	if err != nil || len(env.kind) == 0 {
		return nil
	}
	typ := s.typeOf(gv.WithKind(string(env.kind)))
	s.last.Store(&lastKind{apiVersion: string(env.apiVersion), kind: string(env.kind), typ: typ})
	return typ
}

// lastKind is the kind of the last object a Serializer decoded.
type lastKind struct {
	apiVersion, kind string
	typ              reflect.Type
}

// typeOf returns the Go type of gvk's objects, nil when the creater does
// not know it; cached.
func (s *Serializer) typeOf(gvk schema.GroupVersionKind) reflect.Type {
	if cached, ok := s.types.Load(gvk); ok {
		t, _ := cached.(reflect.Type)
		return t
	}
	var typ reflect.Type
	if obj, err := s.creater.New(gvk); err == nil {
		typ = reflect.TypeOf(obj)
	}
	s.types.Store(gvk, typ)
	return typ
}

// Encode encodes obj with the wrapped serializer.
func (s *Serializer) Encode(obj runtime.Object, w io.Writer) error {
	return s.base.Encode(obj, w)
}

// Identifier returns the wrapped serializer's identifier: what it encodes
// is the same.
func (s *Serializer) Identifier() runtime.Identifier { return s.base.Identifier() }

// NegotiatedSerializer is a client's NegotiatedSerializer whose protobuf
// decoder is a Serializer. It is what a REST client's config takes.
type NegotiatedSerializer struct {
	base  runtime.NegotiatedSerializer
	infos []runtime.SerializerInfo
}

// NewNegotiatedSerializer returns base with the serializer of protobuf
// (runtime.ContentTypeProtobuf) wrapped to decode what plan keeps; the
// stream serializer that frames watch events stays base's (the objects
// inside the events are decoded by the wrapped one).
func NewNegotiatedSerializer(base runtime.NegotiatedSerializer, plan *Plan, creater runtime.ObjectCreater) *NegotiatedSerializer {
	infos := append([]runtime.SerializerInfo(nil), base.SupportedMediaTypes()...)
	for i := range infos {
		if infos[i].MediaType == runtime.ContentTypeProtobuf && infos[i].Serializer != nil {
			infos[i].Serializer = NewSerializer(infos[i].Serializer, plan, creater)
		}
	}
	return &NegotiatedSerializer{base: base, infos: infos}
}

// SupportedMediaTypes returns base's, with protobuf's decoder wrapped.
func (n *NegotiatedSerializer) SupportedMediaTypes() []runtime.SerializerInfo { return n.infos }

// EncoderForVersion is base's.
func (n *NegotiatedSerializer) EncoderForVersion(e runtime.Encoder, gv runtime.GroupVersioner) runtime.Encoder {
	return n.base.EncoderForVersion(e, gv)
}

// DecoderToVersion is base's.
func (n *NegotiatedSerializer) DecoderToVersion(d runtime.Decoder, gv runtime.GroupVersioner) runtime.Decoder {
	return n.base.DecoderToVersion(d, gv)
}
