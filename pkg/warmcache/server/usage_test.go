package server

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"

	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
)

// metricsGroups lists the metrics API.
type metricsGroups struct{}

func (metricsGroups) ServerGroups() (*metav1.APIGroupList, error) {
	return &metav1.APIGroupList{Groups: []metav1.APIGroup{{Name: usage.GroupName,
		Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: usage.GroupName + "/" + usage.Version, Version: usage.Version}}}}}, nil
}

// fakeUsageClient answers every LIST of PodMetrics with one pod of the
// namespace listed, sampled now.
func fakeUsageClient() usage.Client {
	cs := metricsfake.NewSimpleClientset()
	cs.PrependReactor("list", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		ns := action.GetNamespace()
		return true, &metricsv1beta1.PodMetricsList{Items: []metricsv1beta1.PodMetrics{{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns + "x", Name: "p"},
			Timestamp:  metav1.NewTime(time.Now()), Window: metav1.Duration{Duration: 10 * time.Second},
		}}}, nil
	})
	return usage.Client{Discovery: metricsGroups{}, Metrics: cs.MetricsV1beta1()}
}

func TestSamples(t *testing.T) {
	s := NewSamples(fakeUsageClient(), 200*time.Millisecond)
	defer s.Shutdown()
	ctx := context.Background()
	for _, ns := range []string{"a", "b", "a"} {
		snapshot, err := s.Latest(ctx, usage.Config{Pods: true, Namespace: ns, Interval: time.Hour})
		if err != nil || snapshot == nil {
			t.Fatalf("Latest(pods of %s) = %v, %v", ns, snapshot, err)
		}
		if _, ok := snapshot.Pod(ns+"x", "p"); !ok {
			t.Errorf("Latest(pods of %s) has pods %v, want %sx/p", ns, snapshot.Pods, ns)
		}
	}
	st := s.Status()
	if len(st) != 2 || st[0].Namespace != "a" || st[1].Namespace != "b" || st[0].Readings != 1 || st[0].Newest.IsZero() {
		t.Errorf("Status() = %+v, want a reader of a read once, then of b", st)
	}
	// Unasked, the readers are stopped.
	deadline := time.Now().Add(10 * time.Second)
	for len(s.Status()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("Status() after the readers were idle = %+v, want none", s.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Shutdown()
	if _, err := s.Latest(ctx, usage.Config{Pods: true}); err == nil {
		t.Error("Latest() after Shutdown error = nil")
	}
}
