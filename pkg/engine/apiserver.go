package engine

import (
	"context"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// APIServer is the Source of one live API server, as one kubeconfig context
// (server, credentials, impersonation) reaches it. Build it with
// NewAPIServer, or fill the fields directly in tests.
//
// Its feeds are the informers client-go's factories would build:
// metadata-only (PartialObjectMetadata in protobuf) when whole objects are
// not needed, typed (protobuf into client-go's Go types) for built-in types,
// dynamic (JSON into unstructured objects) for the others.
type APIServer struct {
	// Typed speaks protobuf and serves built-in types; nil serves them
	// dynamically too.
	Typed *TypedClient
	// Dynamic speaks JSON and serves every type, custom resources included.
	Dynamic dynamic.Interface
	// Metadata fetches PartialObjectMetadata in protobuf for any type.
	Metadata metadata.Interface
	// Mapper resolves user-typed resource names (short names, kinds,
	// group-qualified names) through discovery.
	Mapper meta.RESTMapper
	// Host is the API server's URL, which its feeds name (Feed.Server).
	Host string
}

// NewAPIServer builds the clients of the API server config reaches. It
// copies the config, sets userAgent, asks for protobuf where the server can
// give it, and clears the client-side Timeout, which bounds a whole response
// read and would abort long lists and every watch. The clients are not
// changed afterwards: each engine's requests carry that engine's options
// (watch monitoring, Config.PlainWatchStreams) on their context, so engines
// can share one APIServer.
func NewAPIServer(config *rest.Config, mapper meta.RESTMapper, userAgent string) (*APIServer, error) {
	c := &APIServer{Mapper: mapper, Host: config.Host}
	base := rest.CopyConfig(config)
	base.Timeout = 0
	base.UserAgent = userAgent
	base.Wrap(monitorRequests)
	base.Wrap(func(rt http.RoundTripper) http.RoundTripper { return plainWatches{next: rt} })

	var err error
	if c.Typed, err = newTypedClient(base); err != nil {
		return nil, fmt.Errorf("creating typed client: %w", err)
	}
	if c.Dynamic, err = dynamic.NewForConfig(base); err != nil {
		return nil, fmt.Errorf("creating dynamic client: %w", err)
	}
	if c.Metadata, err = metadata.NewForConfig(base); err != nil {
		return nil, fmt.Errorf("creating metadata client: %w", err)
	}
	return c, nil
}

// RESTMapper returns the discovery-backed mapper the APIServer was built
// with.
func (c *APIServer) RESTMapper() meta.RESTMapper { return c.Mapper }

// Feed returns the list and watch of mapping's resource in namespace:
// metadata-only unless full, typed for the built-in types Typed serves,
// dynamic otherwise.
func (c *APIServer) Feed(mapping *meta.RESTMapping, namespace string, full bool) (Feed, error) {
	feed, err := c.feed(mapping, namespace, full)
	feed.Server = c.Host
	return feed, err
}

func (c *APIServer) feed(mapping *meta.RESTMapping, namespace string, full bool) (Feed, error) {
	gvr := mapping.Resource
	switch {
	case !full && c.Typed != nil:
		return Feed{
			ListerWatcherWithContext: metadataListerWatcher{
				clientListerWatcher: clientListerWatcher[*metav1.PartialObjectMetadataList]{c.Metadata.Resource(gvr).Namespace(namespace)},
				typed:               c.Typed, gvr: gvr, namespace: namespace,
			},
			Kind:    Metadata,
			Example: &metav1.PartialObjectMetadata{},
		}, nil
	case !full:
		return Feed{
			ListerWatcherWithContext: clientListerWatcher[*metav1.PartialObjectMetadataList]{c.Metadata.Resource(gvr).Namespace(namespace)},
			Kind:                     Metadata,
			Example:                  &metav1.PartialObjectMetadata{},
		}, nil
	case c.Typed != nil && c.Typed.Serves(mapping.GroupVersionKind):
		lw, example, err := c.Typed.listerWatcher(mapping, namespace)
		if err != nil {
			return Feed{}, err
		}
		return Feed{ListerWatcherWithContext: lw, Kind: Typed, Example: example}, nil
	default:
		return Feed{
			ListerWatcherWithContext: clientListerWatcher[*unstructured.UnstructuredList]{c.Dynamic.Resource(gvr).Namespace(namespace)},
			Kind:                     Dynamic,
			Example:                  &unstructured.Unstructured{},
		}, nil
	}
}

// get reads one object with the dynamic client's GET, as JSON.
func (c *APIServer) get(ctx context.Context, mapping *meta.RESTMapping, namespace, name string) (runtime.Object, error) {
	return c.Dynamic.Resource(mapping.Resource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
}

// plainWatches asks for watch streams uncompressed (Accept-Encoding:
// identity) for the engines that set Config.PlainWatchStreams; lists keep
// client-go's gzip. Each watch event is flushed as a deflate block of its
// own, so gzip costs the client CPU per event and saves few bytes.
type plainWatches struct {
	next http.RoundTripper
}

func (t plainWatches) RoundTrip(req *http.Request) (*http.Response, error) {
	if requestOptionsOf(req).plainWatches && isWatch(req) && req.Header.Get("Accept-Encoding") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("Accept-Encoding", "identity")
	}
	return t.next.RoundTrip(req)
}
