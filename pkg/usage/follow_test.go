package usage

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

func TestFollow(t *testing.T) {
	var reads atomic.Int64
	// The first two readings hold the same sample, then each a newer one.
	cs := fakeMetrics(func() []metricsv1beta1.PodMetrics {
		n := max(reads.Add(1), 2)
		return []metricsv1beta1.PodMetrics{podMetrics("ns", "p", t0.Add(time.Duration(n)*time.Second), usage("1m", "1Mi"))}
	}, func() []metricsv1beta1.NodeMetrics { return nil })
	var failing atomic.Bool
	cs.PrependReactor("list", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failing.Load() {
			return true, nil, errors.New("the metrics API is gone")
		}
		return false, nil, nil
	})
	p, err := NewPoller(Client{Discovery: apiGroups{metricsGroup(Version)}, Metrics: cs.MetricsV1beta1()}, Config{Pods: true, Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var samples []*Snapshot
	var errs []error
	Follow(ctx, p, func(s *Snapshot) {
		samples = append(samples, s)
		if len(samples) == 1 {
			failing.Store(true) // a reading fails once
		}
		if len(samples) == 3 {
			cancel()
		}
	}, func(err error) {
		errs = append(errs, err)
		failing.Store(false)
	})
	if len(samples) != 3 {
		t.Fatalf("Follow gave %d samples before its context ended, want 3", len(samples))
	}
	for i := 1; i < len(samples); i++ {
		if samples[i].SameSamples(samples[i-1]) {
			t.Errorf("sample %d is the same as the one before", i)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "the metrics API is gone") {
		t.Errorf("Follow gave errors %v, want one, the failed reading's", errs)
	}
}
