package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
)

func TestQuietAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	fake := watch.NewFake()
	w := quietAfterCancel(ctx, fake)
	go fake.Add(&corev1.Pod{})
	if ev := <-w.ResultChan(); ev.Type != watch.Added {
		t.Fatalf("first event = %v, want the ADDED it was sent", ev.Type)
	}
	cancel()
	// The aborted stream's decode error, then its end.
	go func() {
		fake.Error(&apierrors.NewInternalError(errors.New("unable to decode an event from the watch stream: context canceled")).ErrStatus)
		fake.Stop()
	}()
	select {
	case ev, ok := <-w.ResultChan():
		t.Fatalf("after the context ended the watch sent %v (open %v), want nothing until Stop", ev.Type, ok)
	case <-time.After(200 * time.Millisecond):
	}
	w.Stop()
	if _, ok := <-w.ResultChan(); ok {
		t.Fatal("the result channel is open after Stop")
	}
}

func TestQuietAfterCancelPassesAnEndBeforeCancel(t *testing.T) {
	fake := watch.NewFake()
	w := quietAfterCancel(t.Context(), fake)
	go func() {
		fake.Error(&apierrors.NewResourceExpired("too old resource version").ErrStatus)
		fake.Stop()
	}()
	if ev := <-w.ResultChan(); ev.Type != watch.Error {
		t.Fatalf("event = %v, want the server's ERROR", ev.Type)
	}
	if _, ok := <-w.ResultChan(); ok {
		t.Fatal("the result channel is open after the stream ended")
	}
	w.Stop()
}
