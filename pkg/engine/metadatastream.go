package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"reflect"

	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kubectl-informer/kubectl-informer/pkg/protoskip"
)

// metadataListerWatcher is the metadata client's list and watch of one
// resource in one namespace ("" for all) that can also stream its LIST
// (listStreamer), as PartialObjectMetadata in protobuf.
type metadataListerWatcher struct {
	clientListerWatcher[*metav1.PartialObjectMetadataList]
	typed     *TypedClient
	gvr       schema.GroupVersionResource
	namespace string
}

// metadataAccept asks for the list as the metadata client does.
const metadataAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"

var (
	// metadataParameters encodes list options as the metadata client does.
	metadataParameters = func() runtime.ParameterCodec {
		s := runtime.NewScheme()
		metav1.AddToGroupVersion(s, metadataParametersVersion)
		return runtime.NewParameterCodec(s)
	}()
	metadataParametersVersion = schema.GroupVersion{Version: "v1"}
	// metadataOnly keeps of each object its metadata without managedFields.
	metadataOnly, _ = protoskip.NewPlan(nil)
)

// StreamListWithContext lists as the metadata client's List does, but
// decodes the protobuf response one item at a time, each without its
// managedFields when the engine drops them, and hands each to each as it
// is read, decoding the next into one each released. A response that is
// not protobuf gives errNoListStream.
func (l metadataListerWatcher) StreamListWithContext(ctx context.Context, opts metav1.ListOptions, each func(runtime.Object) (release bool, err error)) (metav1.ListMeta, error) {
	client, err := l.typed.metadataRESTClient()
	if err != nil {
		return metav1.ListMeta{}, err
	}
	segments := []string{"/api"}
	if l.gvr.Group != "" {
		segments = []string{"/apis", l.gvr.Group}
	}
	segments = append(segments, l.gvr.Version)
	if l.namespace != "" {
		segments = append(segments, "namespaces", l.namespace)
	}
	segments = append(segments, l.gvr.Resource)
	body, err := client.Get().AbsPath(segments...).
		SetHeader("Accept", metadataAccept).
		SpecificallyVersionedParams(&opts, metadataParameters, metadataParametersVersion).
		Timeout(timeoutOf(opts)).
		Stream(ctx)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	defer body.Close()
	var plan *protoskip.Plan
	if o, ok := ctx.Value(requestOptionsKey{}).(*requestOptions); ok && o != nil && o.dropsManagedFields {
		plan = metadataOnly
	}
	var spare *metav1.PartialObjectMetadata
	meta, err := protoskip.DecodeList(bufio.NewReaderSize(body, 64<<10), reflect.TypeOf(metav1.PartialObjectMetadataList{}), plan,
		func() runtime.Object {
			if spare != nil {
				item := spare
				spare = nil
				*item = metav1.PartialObjectMetadata{}
				return item
			}
			return &metav1.PartialObjectMetadata{}
		},
		func(item runtime.Object) error {
			release, err := each(item)
			if release {
				spare = item.(*metav1.PartialObjectMetadata)
			}
			return err
		})
	switch {
	case errors.Is(err, protoskip.ErrNotProtobuf):
		return meta, errNoListStream
	case err != nil:
		return meta, fmt.Errorf("reading the list of %s: %w", l.gvr.GroupResource(), err)
	}
	return meta, nil
}

// metadataRESTClient returns the REST client that lists metadata
// (PartialObjectMetadata) of any type, on c's HTTP client and rate limiter.
func (c *TypedClient) metadataRESTClient() (*rest.RESTClient, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.metadata != nil {
		return c.metadata, nil
	}
	config := rest.CopyConfig(c.config)
	config.GroupVersion = nil
	config.NegotiatedSerializer = metainternalversionscheme.Codecs.WithoutConversion()
	rc, err := rest.UnversionedRESTClientForConfigAndClient(config, c.http)
	if err != nil {
		return nil, fmt.Errorf("creating the metadata REST client: %w", err)
	}
	c.metadata = rc
	return rc, nil
}
