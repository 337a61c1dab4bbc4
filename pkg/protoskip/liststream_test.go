package protoskip

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// decodeAll runs DecodeList over data and returns the list it read.
func decodeAll(data []byte, plan *Plan, bufSize int) (*corev1.PodList, error) {
	list := &corev1.PodList{}
	meta, err := DecodeList(bufio.NewReaderSize(bytes.NewReader(data), bufSize), reflect.TypeOf(list), plan,
		func() runtime.Object { return &corev1.Pod{} },
		func(obj runtime.Object) error {
			list.Items = append(list.Items, *obj.(*corev1.Pod))
			return nil
		})
	list.ListMeta = meta
	return list, err
}

func TestDecodeListGivesTheItemsThePlanKeeps(t *testing.T) {
	plans := map[string][]string{
		"whole (nil plan)": nil,
		"metadata":         {},
		"node":             {"spec.nodeName"},
		"spec and status":  {"spec", "status"},
	}
	lists := map[string]*corev1.PodList{
		"eight pods": fixtureList(8),
		"empty":      {TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "7"}},
	}
	base := protobufSerializer(t)
	for planName, paths := range plans {
		var plan *Plan
		if paths != nil {
			var err error
			if plan, err = NewPlan(paths); err != nil {
				t.Fatal(err)
			}
		}
		for listName, list := range lists {
			data := encode(t, list)
			// 16 bytes of buffer make every field cross reads.
			for _, bufSize := range []int{16, 4096} {
				t.Run(planName+"/"+listName, func(t *testing.T) {
					whole := &corev1.PodList{}
					if _, _, err := base.Decode(data, nil, whole); err != nil {
						t.Fatal(err)
					}
					want := whole.DeepCopy()
					want.TypeMeta = metav1.TypeMeta{}
					if plan != nil {
						project(reflect.ValueOf(want), plan.filterFor(reflect.TypeOf(want)))
					}
					if len(want.Items) == 0 {
						want.Items = nil
					}
					got, err := decodeAll(data, plan, bufSize)
					if err != nil {
						t.Fatalf("DecodeList() error = %v", err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("DecodeList() = %#v\nwant %#v", got, want)
					}
				})
			}
		}
	}
}

func TestDecodeListRefusesWhatIsNotAList(t *testing.T) {
	good := encode(t, fixtureList(3))
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"json", []byte(`{"kind":"PodList"}`), ErrNotProtobuf.Error()},
		{"empty body", nil, ErrNotProtobuf.Error()},
		{"only the magic", envelopePrefix, "holds no object"},
		{"cut inside an item", good[:len(good)/2], "ended inside a field"},
		{"item longer than the list", append(append([]byte(nil), envelopePrefix...), 0x12, 0x03, 0x12, 0x7f, 0x00), "runs past its message"},
		{"item over the bound", append(append([]byte(nil), envelopePrefix...), 0x12, 0x06, 0x12, 0x80, 0x80, 0x80, 0x80, 0x01), "larger than"},
		{"two objects", append(append(append([]byte(nil), envelopePrefix...), 0x12, 0x00), 0x12, 0x00), "more than one object"},
		{"group wire type", append(append([]byte(nil), envelopePrefix...), 0x0b), "wire type"},
		{"content encoding", append(append(append([]byte(nil), good...), 0x1a, 0x04), "gzip"...), "content encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeAll(tt.data, nil, 4096)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("DecodeList() error = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestDecodeListStopsAtTheCallbacksError(t *testing.T) {
	stop := errors.New("stop")
	seen := 0
	_, err := DecodeList(bufio.NewReader(bytes.NewReader(encode(t, fixtureList(5)))), reflect.TypeOf(&corev1.PodList{}), nil,
		func() runtime.Object { return &corev1.Pod{} },
		func(runtime.Object) error {
			seen++
			if seen == 2 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || seen != 2 {
		t.Errorf("DecodeList() error = %v after %d items, want %v after 2", err, seen, stop)
	}
}

func TestDecodeListLeavesANonProtobufBodyUnread(t *testing.T) {
	r := bufio.NewReader(strings.NewReader(`{"kind":"PodList"}`))
	if _, err := DecodeList(r, reflect.TypeOf(&corev1.PodList{}), nil, nil, nil); !errors.Is(err, ErrNotProtobuf) {
		t.Fatalf("DecodeList() error = %v, want ErrNotProtobuf", err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != `{"kind":"PodList"}` {
		t.Errorf("the body after DecodeList = %q, want it whole", rest)
	}
}

// FuzzDecodeList feeds DecodeList arbitrary bodies: it must return an error
// or items, never panic or allocate past its bounds; when the generated
// Unmarshal of the envelope's object accepts the body as a PodList,
// DecodeList must give the same items.
func FuzzDecodeList(f *testing.F) {
	f.Add(encode(f, fixtureList(2)))
	f.Add(encode(f, &corev1.PodList{}))
	f.Add(append(append([]byte(nil), envelopePrefix...), 0x12, 0x06, 0x12, 0x80, 0x80, 0x80, 0x80, 0x01))
	plan, err := NewPlan([]string{"spec.nodeName", "status.phase"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeAll(data, plan, 64)
		if err != nil {
			return
		}
		env, ok := parseEnvelope(data)
		if !ok {
			return
		}
		whole := &corev1.PodList{}
		if whole.Unmarshal(env.raw) != nil {
			return
		}
		project(reflect.ValueOf(whole), plan.filterFor(reflect.TypeOf(whole)))
		if len(whole.Items) == 0 {
			whole.Items = nil
		}
		if !reflect.DeepEqual(got, whole) {
			t.Fatalf("DecodeList() = %#v, want %#v", got, whole)
		}
	})
}
