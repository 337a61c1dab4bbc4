package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// ServerEvent is one event of the API server's own watch stream, its object
// as encoding/json decodes it (numbers as float64, like the plugin's JSON
// output).
type ServerEvent struct {
	Type   watch.EventType
	Object map[string]interface{}
}

// ServerWatch holds the API server's own watch streams of some resources in
// one namespace, from the moment WatchServer starts them: the reference a
// test checks the plugin's watches, recordings and replays against.
type ServerWatch struct {
	mu     sync.Mutex
	events []ServerEvent
	errs   []error
}

// WatchServer lists each resource in ns and watches it from that list's
// resourceVersion until the test ends, keeping every event. A watch that
// cannot start fails the test; an error or bookmark event on a stream is kept
// as an error (see Snapshot).
func WatchServer(t *testing.T, dyn dynamic.Interface, ns string, gvrs ...schema.GroupVersionResource) *ServerWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w := &ServerWatch{}
	for _, gvr := range gvrs {
		list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing %s: %v", gvr.Resource, err)
		}
		stream, err := dyn.Resource(gvr).Namespace(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
		if err != nil {
			t.Fatalf("watching %s: %v", gvr.Resource, err)
		}
		t.Cleanup(stream.Stop)
		go func() {
			for ev := range stream.ResultChan() {
				w.record(ev)
			}
		}()
	}
	return w
}

func (w *ServerWatch) record(ev watch.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ev.Type == watch.Error || ev.Type == watch.Bookmark {
		w.errs = append(w.errs, fmt.Errorf("server watch sent %s: %v", ev.Type, ev.Object))
		return
	}
	data, err := json.Marshal(ev.Object)
	if err != nil {
		w.errs = append(w.errs, err)
		return
	}
	var obj map[string]interface{}
	if err := json.Unmarshal(data, &obj); err != nil {
		w.errs = append(w.errs, err)
		return
	}
	w.events = append(w.events, ServerEvent{Type: ev.Type, Object: obj})
}

// Snapshot returns the events so far in the order they arrived (per stream,
// the server's order), and the errors the streams sent; the caller owns both
// slices.
func (w *ServerWatch) Snapshot() ([]ServerEvent, []error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.events), slices.Clone(w.errs)
}
