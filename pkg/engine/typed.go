package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/kubectl-informer/kubectl-informer/pkg/protoskip"
)

// TypedClient lists and watches built-in types in protobuf and decodes them
// into client-go's Go types (those of the kubernetes scheme). It is safe for
// concurrent use.
//
// It does for any type the scheme knows what the generated clientset does
// for each: one REST client per group version, sharing one HTTP client and
// one rate limiter, without linking the clientset's packages for every
// built-in type (why: bench/README.md, "No generated clientset").
type TypedClient struct {
	config *rest.Config
	http   *http.Client

	mu      sync.Mutex
	clients map[typedClientKey]*rest.RESTClient
	// metadata lists PartialObjectMetadata (metadataRESTClient).
	metadata *rest.RESTClient
}

// typedClientKey names a REST client of a TypedClient: its group version,
// and what its protobuf decoder keeps (a protoskip.Plan's Key; "" decodes
// whole objects).
type typedClientKey struct {
	gv    schema.GroupVersion
	reads string
}

func newTypedClient(config *rest.Config) (*TypedClient, error) {
	config = rest.CopyConfig(config)
	config.ContentType = "application/vnd.kubernetes.protobuf"
	config.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	config.NegotiatedSerializer = rest.CodecFactoryForGeneratedClient(scheme.Scheme, scheme.Codecs).WithoutConversion()
	if config.RateLimiter == nil && config.QPS > 0 {
		burst := config.Burst
		if burst <= 0 {
			burst = rest.DefaultBurst
		}
		config.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(config.QPS, burst)
	}
	h, err := rest.HTTPClientFor(config)
	if err != nil {
		return nil, err
	}
	return &TypedClient{config: config, http: h, clients: map[typedClientKey]*rest.RESTClient{}}, nil
}

// Serves reports whether gvk and its list are Go types of the scheme.
func (c *TypedClient) Serves(gvk schema.GroupVersionKind) bool {
	return scheme.Scheme.Recognizes(gvk) && scheme.Scheme.Recognizes(listKind(gvk))
}

func listKind(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	return gvk.GroupVersion().WithKind(gvk.Kind + "List")
}

// RESTClient returns the REST client for gv, as the clientset's group
// client for gv would build it.
func (c *TypedClient) RESTClient(gv schema.GroupVersion) (*rest.RESTClient, error) {
	return c.restClient(gv, nil)
}

// restClient returns the REST client for gv whose protobuf decoder keeps
// what reads keeps of each object (protoskip), or whole objects when reads
// is nil. The clients share c's HTTP client and rate limiter.
func (c *TypedClient) restClient(gv schema.GroupVersion, reads *protoskip.Plan) (*rest.RESTClient, error) {
	key := typedClientKey{gv: gv}
	if reads != nil {
		key.reads = "reads:" + reads.Key()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if rc, ok := c.clients[key]; ok {
		return rc, nil
	}
	config := rest.CopyConfig(c.config)
	config.GroupVersion = &gv
	config.APIPath = "/apis"
	if gv.Group == "" {
		config.APIPath = "/api"
	}
	if reads != nil {
		config.NegotiatedSerializer = protoskip.NewNegotiatedSerializer(config.NegotiatedSerializer, reads, scheme.Scheme)
	}
	rc, err := rest.RESTClientForConfigAndClient(config, c.http)
	if err != nil {
		return nil, fmt.Errorf("creating the REST client for %s: %w", gv, err)
	}
	c.clients[key] = rc
	return rc, nil
}

// listerWatcher returns the List and Watch of mapping's resource in
// namespace ("" for all), and an object of its Go type.
func (c *TypedClient) listerWatcher(mapping *meta.RESTMapping, namespace string) (typedListerWatcher, runtime.Object, error) {
	example, err := scheme.Scheme.New(mapping.GroupVersionKind)
	if err != nil {
		return typedListerWatcher{}, nil, err
	}
	gv := mapping.Resource.GroupVersion()
	if _, err := c.RESTClient(gv); err != nil {
		return typedListerWatcher{}, nil, err
	}
	return typedListerWatcher{typed: c, gv: gv, kind: mapping.GroupVersionKind, list: listKind(mapping.GroupVersionKind), resource: mapping.Resource.Resource, namespace: namespace}, example, nil
}

// typedListerWatcher lists and watches one resource of a built-in type, in
// one namespace or in all (""), like the clientset's List and Watch. Each
// request decodes what the engine that sends it reads (Config.Reads, on the
// request's context).
type typedListerWatcher struct {
	typed     *TypedClient
	gv        schema.GroupVersion
	kind      schema.GroupVersionKind
	list      schema.GroupVersionKind
	resource  string
	namespace string
}

// client returns the REST client for the requests of ctx.
func (l typedListerWatcher) client(ctx context.Context) (*rest.RESTClient, error) {
	return l.typed.restClient(l.gv, readsOf(ctx))
}

// readsOf returns what the engine that sends ctx's requests reads (nil:
// whole objects).
func readsOf(ctx context.Context) *protoskip.Plan {
	if opts, ok := ctx.Value(requestOptionsKey{}).(*requestOptions); ok && opts != nil {
		return opts.reads
	}
	return nil
}

func (l typedListerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	list, err := scheme.Scheme.New(l.list)
	if err != nil {
		return nil, err
	}
	client, err := l.client(ctx)
	if err != nil {
		return nil, err
	}
	err = client.Get().
		NamespaceIfScoped(l.namespace, l.namespace != "").
		Resource(l.resource).
		VersionedParams(&opts, scheme.ParameterCodec).
		Timeout(timeoutOf(opts)).
		Do(ctx).
		Into(list)
	return list, err
}

// StreamListWithContext lists as ListWithContext does, but decodes the
// protobuf response one item at a time, as the request's plan says, and
// hands each item to each as it is read, decoding the next item into one
// each released. A response that is not protobuf gives errNoListStream.
func (l typedListerWatcher) StreamListWithContext(ctx context.Context, opts metav1.ListOptions, each func(runtime.Object) (release bool, err error)) (metav1.ListMeta, error) {
	client, err := l.client(ctx)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	known := scheme.Scheme.AllKnownTypes()
	listType, itemType := known[l.list], known[l.kind]
	if listType == nil || itemType == nil {
		return metav1.ListMeta{}, errNoListStream
	}
	body, err := client.Get().
		NamespaceIfScoped(l.namespace, l.namespace != "").
		Resource(l.resource).
		VersionedParams(&opts, scheme.ParameterCodec).
		Timeout(timeoutOf(opts)).
		Stream(ctx)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	defer body.Close()
	// spare is the last item each released, zeroed and decoded into again.
	var spare reflect.Value
	newItem := func() runtime.Object {
		if spare.IsValid() {
			item := spare
			spare = reflect.Value{}
			item.Elem().SetZero()
			return item.Interface().(runtime.Object)
		}
		return reflect.New(itemType).Interface().(runtime.Object)
	}
	meta, err := protoskip.DecodeList(bufio.NewReaderSize(body, 64<<10), listType, readsOf(ctx), newItem,
		func(item runtime.Object) error {
			release, err := each(item)
			if release {
				spare = reflect.ValueOf(item)
			}
			return err
		})
	switch {
	case errors.Is(err, protoskip.ErrNotProtobuf):
		return meta, errNoListStream
	case err != nil:
		return meta, fmt.Errorf("reading the list of %s: %w", l.resource, err)
	}
	return meta, nil
}

func (l typedListerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	client, err := l.client(ctx)
	if err != nil {
		return nil, err
	}
	return client.Get().
		NamespaceIfScoped(l.namespace, l.namespace != "").
		Resource(l.resource).
		VersionedParams(&opts, scheme.ParameterCodec).
		Timeout(timeoutOf(opts)).
		Watch(ctx)
}

func timeoutOf(opts metav1.ListOptions) time.Duration {
	if opts.TimeoutSeconds == nil {
		return 0
	}
	return time.Duration(*opts.TimeoutSeconds) * time.Second
}
