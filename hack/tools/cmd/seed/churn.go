package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// churnOptions are the flags of seed churn.
type churnOptions struct {
	rate            float64
	duration        time.Duration
	namespace       string
	selector        string
	recreatePercent float64
	stamp           string
}

func (o *churnOptions) validate() error {
	switch {
	case o.rate <= 0:
		return fmt.Errorf("--rate must be positive, got %v", o.rate)
	case o.duration <= 0:
		return fmt.Errorf("--duration must be positive, got %v", o.duration)
	case o.recreatePercent < 0 || o.recreatePercent > 100:
		return fmt.Errorf("--recreate-percent must be between 0 and 100, got %v", o.recreatePercent)
	}
	return nil
}

// The kinds of change churn makes.
const (
	opLabel      = "label"
	opAnnotation = "annotation"
	opStatus     = "status"
	opRecreate   = "recreate"
)

// stampWriter writes one line per update response; it is safe for
// concurrent use.
type stampWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (s *stampWriter) write(op, namespace, name, resourceVersion string) {
	if s == nil {
		return
	}
	now := time.Now().UnixNano()
	s.mu.Lock()
	fmt.Fprintf(s.w, "%d %s %s/%s %s\n", now, op, namespace, name, resourceVersion)
	s.mu.Unlock()
}

// churn updates seeded pods at a fixed rate. Pods are sharded over the
// workers by index, so no two requests touch one pod at the same time.
func churn(ctx context.Context, cs kubernetes.Interface, workers int, o churnOptions) error {
	list, err := cs.CoreV1().Pods(o.namespace).List(ctx, metav1.ListOptions{LabelSelector: o.selector})
	if err != nil {
		return fmt.Errorf("listing pods to churn: %w", err)
	}
	if len(list.Items) == 0 {
		return fmt.Errorf("no pods match %q in namespace %q; run seed pods first", o.selector, o.namespace)
	}
	pods := list.Items
	workers = min(workers, len(pods))

	var stamps *stampWriter
	if o.stamp != "" {
		f, err := os.Create(o.stamp)
		if err != nil {
			return fmt.Errorf("creating the stamp file: %w", err)
		}
		defer f.Close()
		stamps = &stampWriter{w: bufio.NewWriter(f)}
		defer stamps.w.Flush()
	}

	var counts sync.Map // op -> *atomic.Int64
	count := func(op string) {
		c, _ := counts.LoadOrStore(op, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
	}
	var errCount atomic.Int64
	var firstErr atomic.Value

	shards := make([]chan int, workers)
	var wg sync.WaitGroup
	var seq atomic.Int64
	for w := range shards {
		shards[w] = make(chan int, 16)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range shards[w] {
				op, err := churnOne(ctx, cs, &pods[i], o, seq.Add(1), stamps)
				if err != nil {
					errCount.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				count(op)
			}
		}()
	}

	interval := time.Duration(float64(time.Second) / o.rate)
	began := time.Now()
	end := began.Add(o.duration)
	timer := time.NewTimer(0)
	defer timer.Stop()
schedule:
	for n := 0; ; n++ {
		// Stop at the end of --duration even when the API server has
		// kept the workers behind the schedule: --rate is what is asked
		// for, the duration what is spent.
		at := began.Add(time.Duration(n) * interval)
		if !at.Before(end) || !time.Now().Before(end) {
			break
		}
		timer.Reset(time.Until(at))
		select {
		case <-ctx.Done():
			break schedule
		case <-timer.C:
		}
		i := rand.IntN(len(pods))
		select {
		case shards[i%workers] <- i:
		case <-ctx.Done():
			break schedule
		}
	}
	for _, s := range shards {
		close(s)
	}
	wg.Wait()
	elapsed := time.Since(began)

	var total int64
	summary := ""
	for _, op := range []string{opLabel, opAnnotation, opStatus, opRecreate} {
		var n int64
		if c, ok := counts.Load(op); ok {
			n = c.(*atomic.Int64).Load()
		}
		total += n
		summary += fmt.Sprintf(", %d %s", n, op)
	}
	fmt.Printf("seed: churned %d pods: %d updates in %s (%.1f/s, target %.1f/s)%s, %d errors\n",
		len(pods), total, elapsed.Round(10*time.Millisecond), float64(total)/elapsed.Seconds(), o.rate, summary, errCount.Load())
	if n := errCount.Load(); n > 0 {
		return fmt.Errorf("%d updates failed, the first with: %w", n, firstErr.Load().(error))
	}
	return ctx.Err()
}

// churnOne makes one change to pod, which only this worker touches, and
// records the stamp of the response.
func churnOne(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod, o churnOptions, seq int64, stamps *stampWriter) (string, error) {
	pods := cs.CoreV1().Pods(pod.Namespace)
	roll := rand.Float64() * 100
	var patch map[string]any
	var subresources []string
	op := opLabel
	switch {
	case roll < o.recreatePercent:
		return opRecreate, recreate(ctx, cs, pod, stamps)
	case roll < o.recreatePercent+(100-o.recreatePercent)/3:
		patch = map[string]any{"metadata": map[string]any{"labels": map[string]string{
			"tier":  tiers[rand.IntN(len(tiers))],
			"churn": fmt.Sprint(seq),
		}}}
	case roll < o.recreatePercent+2*(100-o.recreatePercent)/3:
		op = opAnnotation
		patch = map[string]any{"metadata": map[string]any{"annotations": map[string]string{
			"seed.kubectl-informer.io/churn": fmt.Sprint(seq),
		}}}
	default:
		op = opStatus
		subresources = []string{"status"}
		phase, ready := corev1.PodRunning, corev1.ConditionTrue
		if rand.IntN(2) == 0 {
			phase, ready = corev1.PodPending, corev1.ConditionFalse
		}
		patch = map[string]any{"status": map[string]any{
			"phase": phase,
			"conditions": []corev1.PodCondition{{
				Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.Now(),
			}},
		}}
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return op, fmt.Errorf("encoding a patch: %w", err)
	}
	var updated *corev1.Pod
	err = retry(ctx, func() error {
		var err error
		updated, err = pods.Patch(ctx, pod.Name, types.MergePatchType, data, metav1.PatchOptions{}, subresources...)
		return err
	})
	if err != nil {
		return op, fmt.Errorf("patching %s of pod %s/%s: %w", op, pod.Namespace, pod.Name, err)
	}
	stamps.write(op, pod.Namespace, pod.Name, updated.ResourceVersion)
	return op, nil
}

// recreate deletes pod at once (grace period 0: with spec.nodeName set and
// no kubelet, a graceful delete would never finish) and creates it again
// from its spec.
func recreate(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod, stamps *stampWriter) error {
	pods := cs.CoreV1().Pods(pod.Namespace)
	zero := int64(0)
	if err := retry(ctx, func() error {
		return pods.Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	}); err != nil {
		return fmt.Errorf("deleting pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	stamps.write("delete", pod.Namespace, pod.Name, "-")
	fresh := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        pod.Name,
			Namespace:   pod.Namespace,
			Labels:      pod.Labels,
			Annotations: pod.Annotations,
		},
		Spec: pod.Spec,
	}
	var created *corev1.Pod
	if err := retry(ctx, func() error {
		var err error
		created, err = pods.Create(ctx, fresh, metav1.CreateOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("recreating pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	stamps.write("create", pod.Namespace, pod.Name, created.ResourceVersion)
	*pod = *created
	return nil
}
