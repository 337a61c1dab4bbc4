package cache

import (
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// Clients are the API clients the engine lists and watches with. Build them
// with NewClients, or fill the fields directly in tests.
type Clients struct {
	// Typed speaks protobuf and serves built-in types.
	Typed *TypedClient
	// Dynamic speaks JSON and serves every type, custom resources included.
	Dynamic dynamic.Interface
	// Metadata fetches PartialObjectMetadata in protobuf for any type.
	Metadata metadata.Interface
	// Mapper resolves user-typed resource names (short names, kinds,
	// group-qualified names) through discovery.
	Mapper meta.RESTMapper
}

// NewClients builds the engine's clients from a rest.Config. It copies the
// config, sets userAgent, asks for protobuf where the server can give it,
// and clears the client-side Timeout, which bounds a whole response read and
// would abort long lists and every watch. The clients are not changed
// afterwards: each engine's requests carry that engine's options (watch
// monitoring, Config.PlainWatchStreams) on their context, so engines can
// share one Clients.
func NewClients(config *rest.Config, mapper meta.RESTMapper, userAgent string) (*Clients, error) {
	c := &Clients{Mapper: mapper}
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
