package engine

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// runResuming runs a resumingWatch over a fake stream fed with events and
// returns whether it declared the watch resumed, and when.
func runResuming(t *testing.T, initialList bool, feed func(fw *watch.FakeWatcher)) (resumed bool, after time.Duration) {
	t.Helper()
	fw := watch.NewFakeWithChanSize(10, false)
	done := make(chan time.Duration, 1)
	start := time.Now()
	r := &resumingWatch{inner: fw, out: make(chan watch.Event), stopped: make(chan struct{})}
	go r.run(initialList, func() { done <- time.Since(start) })
	go func() {
		for range r.ResultChan() {
		}
	}()
	feed(fw)
	select {
	case d := <-done:
		resumed, after = true, d
	case <-time.After(resumeQuiet + 500*time.Millisecond):
	}
	r.Stop()
	return resumed, after
}

func TestResumingWatch(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", ResourceVersion: "7"}}
	end := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	tooOld := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 5 (8)"}
	tests := []struct {
		name        string
		initialList bool
		feed        func(fw *watch.FakeWatcher)
		want        bool
		quick       bool // declared before resumeQuiet
	}{
		{"a re-watch answered with an error resumes nothing", false, func(fw *watch.FakeWatcher) { fw.Error(tooOld) }, false, false},
		{"a re-watch that sends a change resumes at once", false, func(fw *watch.FakeWatcher) { fw.Modify(pod) }, true, true},
		{"a quiet re-watch resumes after resumeQuiet", false, func(*watch.FakeWatcher) {}, true, false},
		{"a relist resumes at the end of its initial list", true, func(fw *watch.FakeWatcher) { fw.Add(pod); fw.Action(watch.Bookmark, end) }, true, true},
		{"a relist that has not ended resumes nothing", true, func(fw *watch.FakeWatcher) { fw.Add(pod) }, false, false},
		{"a relist refused resumes nothing", true, func(fw *watch.FakeWatcher) { fw.Error(tooOld) }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, after := runResuming(t, tt.initialList, tt.feed)
			if got != tt.want {
				t.Fatalf("resumed = %v, want %v", got, tt.want)
			}
			if got && tt.quick && after >= resumeQuiet {
				t.Errorf("resumed after %s, want before resumeQuiet (%s)", after, resumeQuiet)
			}
			if got && !tt.quick && after < resumeQuiet {
				t.Errorf("resumed after %s, want after resumeQuiet (%s)", after, resumeQuiet)
			}
		})
	}
}

// TestResumingWatchForwards checks that every event reaches the reader in
// order and that the stream ends with the inner one.
func TestResumingWatchForwards(t *testing.T) {
	fw := watch.NewFakeWithChanSize(10, false)
	r := &resumingWatch{inner: fw, out: make(chan watch.Event), stopped: make(chan struct{})}
	go r.run(false, func() {})
	for i := range 5 {
		fw.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint(i)}})
	}
	fw.Stop()
	var names []string
	for ev := range r.ResultChan() {
		names = append(names, ev.Object.(*corev1.Pod).Name)
	}
	if fmt.Sprint(names) != "[0 1 2 3 4]" {
		t.Errorf("forwarded %v, want [0 1 2 3 4]", names)
	}
}

func TestRetriesOutage(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		err  error
		want bool
	}{
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{apierrors.NewTooManyRequests("storage is (re)initializing", 1), true},
		{apierrors.NewServiceUnavailable("starting"), true},
		{apierrors.NewInternalError(errors.New("etcd unavailable")), true},
		{apierrors.NewForbidden(gr, "", errors.New("no")), false},
		{apierrors.NewNotFound(gr, ""), false},
		{apierrors.NewResourceExpired("too old resource version"), false},
	}
	for _, tt := range tests {
		if got := retriesOutage(tt.err); got != tt.want {
			t.Errorf("retriesOutage(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
