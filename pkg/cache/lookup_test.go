package cache

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSortObjects(t *testing.T) {
	objs := []interface{}{
		&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "x"}},
		&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "z"}},
		&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "y"}},
	}
	sortObjects(objs)
	var got []string
	for _, o := range objs {
		m := o.(*metav1.PartialObjectMetadata)
		got = append(got, m.Namespace+"/"+m.Name)
	}
	want := []string{"a/y", "a/z", "b/x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sortObjects() = %v, want %v", got, want)
	}
}
