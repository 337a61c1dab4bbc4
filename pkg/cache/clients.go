package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// Clients are the API clients the engine lists and watches with. Build them
// with NewClients, or fill the fields directly in tests.
type Clients struct {
	// Typed speaks protobuf and serves built-in types.
	Typed kubernetes.Interface
	// Dynamic speaks JSON and serves every type, custom resources included.
	Dynamic dynamic.Interface
	// Metadata fetches PartialObjectMetadata in protobuf for any type.
	Metadata metadata.Interface
	// Mapper resolves user-typed resource names (short names, kinds,
	// group-qualified names) through discovery.
	Mapper meta.RESTMapper

	monitor requestMonitor
}

// NewClients builds the engine's clients from a rest.Config. It copies the
// config, sets userAgent, asks for protobuf where the server can give it, and
// clears the client-side Timeout: --request-timeout bounds a whole response
// read, which would abort long lists and every watch.
func NewClients(config *rest.Config, mapper meta.RESTMapper, userAgent string) (*Clients, error) {
	c := &Clients{Mapper: mapper}
	base := rest.CopyConfig(config)
	base.Timeout = 0
	base.UserAgent = userAgent
	base.Wrap(c.monitor.wrap)

	typedConfig := rest.CopyConfig(base)
	typedConfig.ContentType = "application/vnd.kubernetes.protobuf"
	typedConfig.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	var err error
	if c.Typed, err = kubernetes.NewForConfig(typedConfig); err != nil {
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
