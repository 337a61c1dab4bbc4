package usage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned/typed/metrics/v1beta1"
)

// The API this package reads.
const (
	GroupName = metricsv1beta1.GroupName // metrics.k8s.io
	Version   = "v1beta1"
)

// ErrMetricsAPINotAvailable is returned when discovery does not list the
// metrics API; its text is kubectl top's for the same case.
//
//lint:ignore ST1005 kubectl top's own words, which users know and search for
var ErrMetricsAPINotAvailable = errors.New("Metrics API not available")

// Client is what reading usage needs of a cluster: discovery of its API
// groups, and the metrics API's client.
type Client struct {
	Discovery discovery.ServerGroupsInterface
	Metrics   metricsclient.MetricsV1beta1Interface
}

// NewClient makes a Client from a REST config.
func NewClient(config *rest.Config) (Client, error) {
	d, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return Client{}, fmt.Errorf("creating a discovery client: %w", err)
	}
	m, err := metricsclient.NewForConfig(config)
	if err != nil {
		return Client{}, fmt.Errorf("creating a metrics client: %w", err)
	}
	return Client{Discovery: d, Metrics: m}, nil
}

// Config says what to read.
type Config struct {
	// Pods reads PodMetrics, Nodes NodeMetrics; at least one must be set.
	Pods  bool
	Nodes bool
	// Namespace limits pods to one namespace; "" means all namespaces.
	Namespace string
	// PodSelector and NodeSelector are label selectors for the LISTs, as
	// kubectl top pod -l and kubectl top node -l pass them; "" selects all.
	PodSelector  string
	NodeSelector string
	// Interval is the longest a Poller waits between two readings; 0 means
	// DefaultInterval. A Poller reads sooner when the samples it has say
	// when the next one is due (Poller.Run).
	Interval time.Duration
}

// DefaultInterval is a Poller's Interval when Config leaves it 0:
// metrics-server's default resolution is 60s, kwokctl's and this project's
// local clusters' 10s to 15s.
const DefaultInterval = 15 * time.Second

// fetchTimeout bounds one reading (discovery and the LISTs).
const fetchTimeout = 30 * time.Second

func (c Config) validate() error {
	if !c.Pods && !c.Nodes {
		return errors.New("usage: the config asks for neither pods nor nodes")
	}
	if c.Interval < 0 {
		return fmt.Errorf("usage: interval must not be negative, got %s", c.Interval)
	}
	return nil
}

// Fetch reads the metrics API once, as kubectl top does: discovery must list
// metrics.k8s.io with v1beta1 (else ErrMetricsAPINotAvailable), then one
// LIST of PodMetrics and one of NodeMetrics, as config asks.
func Fetch(ctx context.Context, client Client, config Config) (*Snapshot, error) {
	if err := config.validate(); err != nil {
		return nil, err
	}
	if err := checkAPI(client.Discovery); err != nil {
		return nil, err
	}
	return list(ctx, client, config)
}

// checkAPI checks, as kubectl top does (k8s.io/kubectl/pkg/cmd/top:
// SupportedMetricsAPIVersionAvailable), that discovery lists the metrics
// API's group with the version this package reads.
func checkAPI(d discovery.ServerGroupsInterface) error {
	groups, err := d.ServerGroups()
	if err != nil {
		return fmt.Errorf("discovering API groups: %w", err)
	}
	for _, g := range groups.Groups {
		if g.Name != GroupName {
			continue
		}
		var versions []string
		for _, v := range g.Versions {
			if v.Version == Version {
				return nil
			}
			versions = append(versions, v.Version)
		}
		return fmt.Errorf("%w: %s serves %s, not %s", ErrMetricsAPINotAvailable, GroupName, strings.Join(versions, ", "), Version)
	}
	return ErrMetricsAPINotAvailable
}

// list reads the LISTs config asks for.
func list(ctx context.Context, client Client, config Config) (*Snapshot, error) {
	s := &Snapshot{}
	if config.Pods {
		pods, err := client.Metrics.PodMetricses(config.Namespace).List(ctx, metav1.ListOptions{LabelSelector: config.PodSelector})
		if err != nil {
			return nil, fmt.Errorf("listing %s pods: %w", GroupName, err)
		}
		s.Pods = make(map[string]PodSample, len(pods.Items))
		for i := range pods.Items {
			p := podSample(&pods.Items[i])
			s.Pods[p.Namespace+"/"+p.Name] = p
		}
	}
	if config.Nodes {
		nodes, err := client.Metrics.NodeMetricses().List(ctx, metav1.ListOptions{LabelSelector: config.NodeSelector})
		if err != nil {
			return nil, fmt.Errorf("listing %s nodes: %w", GroupName, err)
		}
		s.Nodes = make(map[string]NodeSample, len(nodes.Items))
		for i := range nodes.Items {
			n := nodeSample(&nodes.Items[i])
			s.Nodes[n.Name] = n
		}
	}
	s.Fetched = time.Now()
	return s, nil
}
