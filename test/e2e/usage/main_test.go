// Package usage tests pkg/usage against the real metrics pipeline of
// hack/cluster up --metrics: metrics-server behind the APIService
// v1beta1.metrics.k8s.io, scraping the resource metrics kwok simulates for
// pods whose usage their annotations set. Every number the package reports is
// compared with what the real `kubectl top pod -A` and `kubectl top node`
// print, and with the test's own sums of the raw PodMetrics, read from the
// same sample, for all namespaces as the admin and for one as viewer, who may
// read no other; a control plane without the metrics API must give kubectl's
// own message. The plugin's usage measures (query --sum usage.cpu, grouped
// per pod, node, owner-root, namespace and zone, sorted, cut, and in
// --filter) and capacity --usage are compared with the same samples, read
// by the test before and after them, with kubectl top of those samples,
// and with the test's own sums and kube-capacity --util's rules.
package usage

import (
	"testing"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// nodes is how many simulated nodes the package's cluster has; gpus the
// nvidia.com/gpu of each odd-numbered one.
const (
	nodes = 3
	gpus  = 2
)

func TestMain(m *testing.M) {
	framework.Main(m, framework.WithNodes(nodes), framework.WithMetrics(), framework.WithGPUs(gpus))
}
