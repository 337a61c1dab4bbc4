package engine

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
)

// reducesLists reports whether the engine's transform of objects of gr
// replaces them by something smaller (Config.Reduce, Config.Transforms), so
// that a list is worth transforming page by page as it arrives.
func (e *Engine) reducesLists(t *Type) bool {
	return e.reducesResource(t.Mapping.Resource.GroupResource())
}

// reducesResource is reducesLists for the objects of gr.
func (e *Engine) reducesResource(gr schema.GroupResource) bool {
	return e.cfg.Reduce != nil || e.cfg.Transforms[gr] != nil
}

// releasesObjects reports whether the transform of gr's objects ends in
// Reduce alone, whose contract lets a streamed list reuse each item's
// struct: the resource transforms (Config.Transforms) may return the
// object they are given, changed, and Reduce then keeps it.
func (e *Engine) releasesObjects(gr schema.GroupResource) bool {
	return e.cfg.Reduce != nil && e.cfg.Transforms[gr] == nil
}

// listTransform is what the items of an informer's lists go through as
// they arrive (Engine.listTransforms).
type listTransform struct {
	transform toolscache.TransformFunc
	// t is the type the items are counted to (Type.listed).
	t *Type
}

// counted counts one streamed item to the type.
func (l listTransform) counted() { l.t.listed.Add(1) }

// receivedSoFar is how many objects t has received: those its informers'
// transform has seen, or, while a streamed list is read and before its
// items enter the informer at once, the items read so far.
func (t *Type) receivedSoFar() int64 {
	return max(t.received.Load(), t.listed.Load())
}

// reduceList returns list with every item passed through transform, as a
// list the reflector and client-go's pager read as they read list: its
// resourceVersion, continue token and remaining item count, and the
// transformed items. A paginated LIST then holds each page's whole objects
// only until the page is transformed, not until the last page has arrived;
// the informer's transform runs again on the items when they enter the
// store, which its contract (idempotent) allows.
func reduceList(list runtime.Object, transform toolscache.TransformFunc) (runtime.Object, error) {
	m, err := meta.ListAccessor(list)
	if err != nil {
		return nil, fmt.Errorf("reading the list: %w", err)
	}
	out := &metainternalversion.List{}
	out.ResourceVersion = m.GetResourceVersion()
	out.Continue = m.GetContinue()
	out.RemainingItemCount = m.GetRemainingItemCount()
	out.Items = make([]runtime.Object, 0, meta.LenList(list))
	err = meta.EachListItem(list, func(item runtime.Object) error {
		reduced, err := transform(item)
		if err != nil {
			return err
		}
		obj, ok := reduced.(runtime.Object)
		if !ok {
			return fmt.Errorf("the transform of %T returned %T, not an API object", item, reduced)
		}
		out.Items = append(out.Items, obj)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
