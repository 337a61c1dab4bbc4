package cache

import (
	"context"
	"errors"
	"fmt"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
)

// listStreamer is a feed that can hand a LIST's items one at a time as
// they are read from the response, so that a reducing engine holds no more
// than one whole object at a time.
type listStreamer interface {
	// StreamListWithContext sends the LIST of opts and calls each with
	// every item as it is decoded, then returns the list's metadata. It
	// returns errNoListStream, having called each for no item, when the
	// response cannot be read item by item (the caller then lists as
	// usual).
	StreamListWithContext(ctx context.Context, opts metav1.ListOptions, each func(runtime.Object) error) (metav1.ListMeta, error)
}

// errNoListStream says a response cannot be read item by item.
var errNoListStream = errors.New("the list cannot be read item by item")

// streamReducedList lists through s with every item passed through
// transform as it arrives, and returns a list of the transformed items the
// reflector reads as it reads any list; counted, if not nil, is called once
// per item.
//
// The reflector's first list asks for resourceVersion "0" (whatever the
// API server's watch cache holds, possibly behind etcd) in pages that the
// watch cache ignores; this asks instead for the consistent list (no
// resourceVersion), unpaginated, which a watch cache serves once it has
// caught up with etcd: the same objects as the streaming initial list
// (WatchList) the other informers use, and kubectl get.
func streamReducedList(ctx context.Context, s listStreamer, opts metav1.ListOptions, transform toolscache.TransformFunc, counted func()) (runtime.Object, error) {
	if opts.ResourceVersion == "0" && opts.Continue == "" {
		opts.ResourceVersion = ""
		opts.ResourceVersionMatch = ""
		opts.Limit = 0
	}
	out := &metainternalversion.List{}
	meta, err := s.StreamListWithContext(ctx, opts, func(item runtime.Object) error {
		reduced, err := transform(item)
		if err != nil {
			return err
		}
		obj, ok := reduced.(runtime.Object)
		if !ok {
			return fmt.Errorf("the transform of %T returned %T, not an API object", item, reduced)
		}
		out.Items = append(out.Items, obj)
		if counted != nil {
			counted()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.ResourceVersion = meta.ResourceVersion
	out.Continue = meta.Continue
	out.RemainingItemCount = meta.RemainingItemCount
	return out, nil
}
