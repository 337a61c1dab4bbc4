package engine

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
	// every item as it is decoded, then returns the list's metadata. When
	// each returns release, it keeps no reference to the item's own struct
	// (it may keep the strings, maps and slices it points to), and the
	// next item may be decoded into it. It returns errNoListStream, having
	// called each for no item, when the response cannot be read item by
	// item (the caller then lists as usual).
	StreamListWithContext(ctx context.Context, opts metav1.ListOptions, each func(runtime.Object) (release bool, err error)) (metav1.ListMeta, error)
}

// errNoListStream says a response cannot be read item by item.
var errNoListStream = errors.New("the list cannot be read item by item")

// streamReducedList lists through s with every item passed through
// transform as it arrives, and returns a list of the transformed items the
// reflector reads as it reads any list; counted, if not nil, is called once
// per item. With releases, transform never returns a result that points
// into the struct of the object it is given unless it returns that object
// itself (Config.Reduce's contract), so each item's struct is reused for
// the next one otherwise.
//
// The reflector's first list asks for resourceVersion "0" (whatever the
// API server's watch cache holds, possibly behind etcd) in pages that the
// watch cache ignores; this asks instead for the consistent list (no
// resourceVersion), unpaginated, which a watch cache serves once it has
// caught up with etcd: the same objects as the streaming initial list
// (WatchList) the other informers use, and kubectl get.
func streamReducedList(ctx context.Context, s listStreamer, opts metav1.ListOptions, transform toolscache.TransformFunc, releases bool, counted func()) (runtime.Object, error) {
	if opts.ResourceVersion == "0" && opts.Continue == "" {
		opts.ResourceVersion = ""
		opts.ResourceVersionMatch = ""
		opts.Limit = 0
	}
	out := &metainternalversion.List{}
	meta, err := s.StreamListWithContext(ctx, opts, func(item runtime.Object) (bool, error) {
		reduced, err := transform(item)
		if err != nil {
			return false, err
		}
		obj, ok := reduced.(runtime.Object)
		if !ok {
			return false, fmt.Errorf("the transform of %T returned %T, not an API object", item, reduced)
		}
		out.Items = append(out.Items, obj)
		if counted != nil {
			counted()
		}
		return releases && obj != item, nil
	})
	if err != nil {
		return nil, err
	}
	out.ResourceVersion = meta.ResourceVersion
	out.Continue = meta.Continue
	out.RemainingItemCount = meta.RemainingItemCount
	return out, nil
}
