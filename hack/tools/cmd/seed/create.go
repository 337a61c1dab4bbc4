package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

var (
	tiers  = []string{"frontend", "backend", "cache", "batch"}
	colors = []string{"red", "green", "blue", "yellow", "purple"}
)

// podOptions are the flags of seed pods.
type podOptions struct {
	nodes   int
	images  int
	apps    int
	running bool
}

func (o *podOptions) validate() error {
	switch {
	case o.nodes < 0:
		return fmt.Errorf("--nodes must not be negative, got %d", o.nodes)
	case o.images < 1:
		return fmt.Errorf("--images must be at least 1, got %d", o.images)
	case o.apps < 1:
		return fmt.Errorf("--apps must be at least 1, got %d", o.apps)
	}
	return nil
}

// seedLabels are the labels of object i: app=app-<i%apps> and a tier that
// varies independently of app.
func seedLabels(i, apps int) map[string]string {
	return map[string]string{
		"app":          fmt.Sprintf("app-%d", i%apps),
		"tier":         tiers[(i/apps)%len(tiers)],
		managedByLabel: managedByValue,
	}
}

// seedPod returns pod i. It needs no ServiceAccount token, so it is
// admitted without a controller-manager (the namespace still needs its
// default ServiceAccount).
func seedPod(i int, sf spreadFlags, o podOptions) *corev1.Pod {
	noToken := false
	grace := int64(0)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      sf.name(i),
			Namespace: sf.namespace(i),
			Labels:    seedLabels(i, o.apps),
		},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken:  &noToken,
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{
				Name:  "main",
				Image: fmt.Sprintf("registry.example.com/image-%d:v1", i%o.images),
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{
						corev1.ResourceCPU:    resource.MustParse("10m"),
						corev1.ResourceMemory: resource.MustParse("16Mi"),
					},
				},
			}},
		},
	}
	if o.nodes > 0 {
		pod.Spec.NodeName = fmt.Sprintf("node-%d", i%o.nodes)
	}
	return pod
}

// runningStatus is the status seed pods --running sets on pod i.
func runningStatus(i int, pod *corev1.Pod) corev1.PodStatus {
	now := metav1.Now()
	ip := fmt.Sprintf("10.%d.%d.%d", 128+(i>>16)&63, (i>>8)&255, i&255)
	return corev1.PodStatus{
		Phase:     corev1.PodRunning,
		PodIP:     ip,
		PodIPs:    []corev1.PodIP{{IP: ip}},
		HostIP:    "192.168.0.1",
		StartTime: &now,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
		},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name:    "main",
			Image:   pod.Spec.Containers[0].Image,
			ImageID: pod.Spec.Containers[0].Image,
			Ready:   true,
			Started: new(true),
			State:   corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		}},
	}
}

func seedPods(ctx context.Context, cs kubernetes.Interface, workers int, sf spreadFlags, o podOptions) error {
	if err := ensureNamespaces(ctx, cs, sf.namespaceNames()); err != nil {
		return err
	}
	return createAll(ctx, "pods", sf, workers, func(ctx context.Context, i int) error {
		pod := seedPod(i, sf, o)
		created, err := cs.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		if err != nil || !o.running {
			return err
		}
		created.Status = runningStatus(i, created)
		return retry(ctx, func() error {
			_, err := cs.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
			return err
		})
	})
}

func seedConfigMaps(ctx context.Context, cs kubernetes.Interface, workers int, sf spreadFlags, size int) error {
	if err := ensureNamespaces(ctx, cs, sf.namespaceNames()); err != nil {
		return err
	}
	value := strings.Repeat("x", size)
	return createAll(ctx, "configmaps", sf, workers, func(ctx context.Context, i int) error {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Name:      sf.name(i),
				Namespace: sf.namespace(i),
				Labels:    seedLabels(i, 10),
			},
			Data: map[string]string{"index": fmt.Sprint(i), "value": value},
		}
		_, err := cs.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		return err
	})
}

func seedWidgets(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, workers int, sf spreadFlags) error {
	if err := ensureNamespaces(ctx, cs, sf.namespaceNames()); err != nil {
		return err
	}
	return createAll(ctx, "widgets", sf, workers, func(ctx context.Context, i int) error {
		labels := map[string]any{}
		for k, v := range seedLabels(i, 10) {
			labels[k] = v
		}
		w := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": widgetGroup + "/" + widgetVersion,
			"kind":       "Widget",
			"metadata": map[string]any{
				"name":      sf.name(i),
				"namespace": sf.namespace(i),
				"labels":    labels,
			},
			"spec": map[string]any{
				"color": colors[i%len(colors)],
				"size":  int64(i % 100),
			},
		}}
		_, err := dyn.Resource(widgetGVR).Namespace(sf.namespace(i)).Create(ctx, w, metav1.CreateOptions{})
		return err
	})
}

// ensureNamespaces creates the namespaces and their default ServiceAccounts,
// which the ServiceAccount admission plugin needs before any pod is created
// (no controller-manager runs to create them).
func ensureNamespaces(ctx context.Context, cs kubernetes.Interface, names []string) error {
	for _, name := range names {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{managedByLabel: managedByValue},
		}}
		if err := retry(ctx, func() error {
			_, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
			return err
		}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", name, err)
		}
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name}}
		if err := retry(ctx, func() error {
			_, err := cs.CoreV1().ServiceAccounts(name).Create(ctx, sa, metav1.CreateOptions{})
			return err
		}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating serviceaccount %s/default: %w", name, err)
		}
	}
	return nil
}

// createAll calls create for every index in [sf.start, sf.start+sf.count)
// from a pool of workers, retrying transient errors, counting objects that
// already exist, and stopping at the first other error. It prints the
// achieved rate.
func createAll(ctx context.Context, kind string, sf spreadFlags, workers int, create func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	indexes := make(chan int, workers)
	var created, existed atomic.Int64
	var wg sync.WaitGroup
	began := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range indexes {
				err := retry(ctx, func() error { return create(ctx, i) })
				switch {
				case err == nil:
					created.Add(1)
				case apierrors.IsAlreadyExists(err):
					existed.Add(1)
				default:
					cancel(fmt.Errorf("creating %s %s/%s: %w", kind, sf.namespace(i), sf.name(i), err))
					return
				}
			}
		}()
	}
send:
	for i := sf.start; i < sf.start+sf.count; i++ {
		select {
		case indexes <- i:
		case <-ctx.Done():
			break send
		}
	}
	close(indexes)
	wg.Wait()
	elapsed := time.Since(began)
	if err := context.Cause(ctx); err != nil {
		return err
	}
	n := created.Load() + existed.Load()
	fmt.Printf("seed: %d %s (%d created, %d already existed) in %d namespace(s) in %s: %.0f %s/s\n",
		n, kind, created.Load(), existed.Load(), min(sf.namespaces, sf.count),
		elapsed.Round(10*time.Millisecond), float64(n)/elapsed.Seconds(), kind)
	return nil
}

// retry runs f until it succeeds, fails with an error that is not
// transient, or the context ends, backing off between attempts.
func retry(ctx context.Context, f func() error) error {
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil || !transient(err) || attempt == 10 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// transient reports whether err is worth retrying: throttling, timeouts,
// server errors and dropped connections (an apiserver restarting).
func transient(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTimeout(err) || apierrors.IsInternalError(err) ||
		apierrors.IsServiceUnavailable(err) || utilnet.IsConnectionReset(err) ||
		utilnet.IsConnectionRefused(err) || utilnet.IsProbableEOF(err) ||
		errors.Is(err, syscall.ECONNREFUSED)
}
