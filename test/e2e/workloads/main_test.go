// Package workloads tests kubectl-informer against objects made by real
// controllers: a cluster with kube-controller-manager, kube-scheduler and
// nodes simulated by kwok (hack/cluster up --nodes), where Deployments roll
// out, pods are bound and reach Running, and Jobs complete.
package workloads

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// nodes is how many simulated nodes the package's cluster has.
const nodes = 3

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(nodes)) }

// rolloutTimeout bounds each step that waits for controllers: long enough
// for a loaded two-core machine.
const rolloutTimeout = 3 * time.Minute

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	replicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// kubectl runs the real kubectl as the admin and fails the test if it fails.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Timeout: rolloutTimeout + 30*time.Second})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// serverEvent is one event of the API server's own watch stream, its object
// as JSON decodes it (numbers as float64, like the plugin's output).
type serverEvent struct {
	Type   watch.EventType
	Object map[string]interface{}
}

// serverWatch records the API server's watch streams of some types in one
// namespace, from the moment it starts.
type serverWatch struct {
	mu     sync.Mutex
	events []serverEvent
	errs   []error
}

// watchServer starts a watch of each resource in ns from its current
// resourceVersion and records every event until the test ends.
func watchServer(t *testing.T, dyn dynamic.Interface, ns string, gvrs ...schema.GroupVersionResource) *serverWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w := &serverWatch{}
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

func (w *serverWatch) record(ev watch.Event) {
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
	w.events = append(w.events, serverEvent{Type: ev.Type, Object: obj})
}

// snapshot returns the events recorded so far, and any errors.
func (w *serverWatch) snapshot() ([]serverEvent, []error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.events), slices.Clone(w.errs)
}

// waitGone waits until ns holds none of the given resources.
func waitGone(t *testing.T, dyn dynamic.Interface, ns string, gvrs ...schema.GroupVersionResource) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, rolloutTimeout, true, func(ctx context.Context) (bool, error) {
		for _, gvr := range gvrs {
			list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil || len(list.Items) > 0 {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s to hold no %v: %v", ns, gvrs, err)
	}
}
