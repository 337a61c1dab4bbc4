package engines

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"

	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

func TestRefuseWatchedUsage(t *testing.T) {
	reads, err := CompilePredicate("--filter", `has(usage.cpu)`)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := CompilePredicate("--until", `object.metadata.name == "a"`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		guards []*expr.Guard
		want   string
	}{
		{name: "a plain expression", guards: []*expr.Guard{plain, nil}},
		{name: "an expression reading usage", guards: []*expr.Guard{plain, reads}, want: "--filter: a watch does not re-read usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := RefuseWatchedUsage(tt.guards...)
			if (err == nil) != (tt.want == "") || (err != nil && !strings.HasPrefix(err.Error(), tt.want)) {
				t.Errorf("RefuseWatchedUsage() = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestReadUsageInAWarmCache(t *testing.T) {
	cs := metricsfake.NewSimpleClientset()
	cs.PrependReactor("list", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, &metricsv1beta1.PodMetricsList{Items: []metricsv1beta1.PodMetrics{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}, Timestamp: metav1.NewTime(time.Now()),
			Window: metav1.Duration{Duration: 10 * time.Second},
		}}}, nil
	})
	groups := discoveryGroups{{Name: usage.GroupName, Versions: []metav1.GroupVersionForDiscovery{{Version: usage.Version}}}}
	samples := server.NewSamples(usage.Client{Discovery: groups, Metrics: cs.MetricsV1beta1()}, 0)
	defer samples.Shutdown()

	var errOut strings.Builder
	o := &EngineOptions{Engines: WarmEngines{Env: &ServeEnv{Usage: samples}}}
	s := o.ReadUsage(context.Background(), &errOut, true, false)
	if _, ok := s.Pod("ns", "p"); !ok || !strings.HasPrefix(errOut.String(), "usage as of ") {
		t.Errorf("ReadUsage() = %v, stderr %q; want the cache's sample of ns/p, said", s, errOut.String())
	}
	if st := samples.Status(); len(st) != 1 || st[0].Readings != 1 {
		t.Errorf("the cache's readers = %+v, want one that read once", st)
	}

	errOut.Reset()
	o = &EngineOptions{Engines: WarmEngines{Env: &ServeEnv{}}}
	if s := o.ReadUsage(context.Background(), &errOut, true, false); s != nil || !strings.Contains(errOut.String(), "Metrics API not available") {
		t.Errorf("ReadUsage() without samples = %v, stderr %q; want nil and kubectl top's message", s, errOut.String())
	}
}

// discoveryGroups is a discovery client that lists groups.
type discoveryGroups []metav1.APIGroup

func (g discoveryGroups) ServerGroups() (*metav1.APIGroupList, error) {
	return &metav1.APIGroupList{Groups: g}, nil
}
