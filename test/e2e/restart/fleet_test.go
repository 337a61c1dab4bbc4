package restart

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// The contexts of the fleet test: the package's cluster, whose API server
// restarts, and another control plane that stays up.
const (
	restartingContext = "restarting"
	steadyContext     = "steady"
)

// TestFleetWatchThroughRestarts runs one watch across two contexts during
// the rollout with outages: the restarting context's events must be what a
// direct watch prints (rollout.check), and the steady context, whose own
// pods change all along, must print every state its API server sent,
// exactly and in order, with nothing on stderr about its watches.
func TestFleetWatchThroughRestarts(t *testing.T) {
	r := newRollout(t, "restart-fleet-"+utilrand.String(5))
	r.context = restartingContext
	steady := framework.StartCluster(t)
	framework.CreateNamespace(t, steady.AdminClient(), r.ns)
	steadyServer := framework.WatchServer(t, steady.AdminDynamicClient(), r.ns, deploymentsGVR, replicaSetsGVR, podsGVR)

	kubeconfig := mergeKubeconfigs(t, map[string]string{
		restartingContext: r.c.AdminKubeconfig(),
		steadyContext:     steady.AdminKubeconfig(),
	})
	p := framework.Start(t, framework.Cmd{
		Args:       append([]string{"informer", "watch", "--context", restartingContext + "," + steadyContext}, watchArgs(r.ns)...),
		Kubeconfig: kubeconfig,
		Timeout:    10 * time.Minute,
	})
	deadline := time.Now().Add(time.Minute)
	for _, c := range []string{restartingContext, steadyContext} {
		for !strings.Contains(p.Stderr(), "context "+c+": synced") {
			if time.Now().After(deadline) {
				t.Fatalf("context %s did not sync within a minute; stderr:\n%s", c, p.Stderr())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	r.watches = []*framework.Process{p}

	churn := startPodChurn(t, steady.AdminClient(), r.ns)
	r.run()
	changes, err := churn.stop()
	if err != nil {
		t.Fatalf("changing the steady context: %v", err)
	}
	steadyEvents := waitForSteady(t, steadyServer, p)
	stop(t, p)

	r.check("the restarting context", printedEvents(t, p, restartingContext))
	compareExactly(t, steadyEvents, printedEvents(t, p, steadyContext))
	for _, line := range strings.Split(p.Stderr(), "\n") {
		if strings.HasPrefix(line, "context "+steadyContext+": ") && !strings.HasSuffix(line, "; watching for changes") {
			t.Errorf("stderr about the steady context: %s", line)
		}
	}
	t.Logf("the steady context made %d changes; its API server sent %d events", changes, len(steadyEvents))
}

// mergeKubeconfigs writes a kubeconfig with one context per entry of
// contexts, each the current context of the kubeconfig it names.
func mergeKubeconfigs(t *testing.T, contexts map[string]string) string {
	t.Helper()
	merged := clientcmdapi.NewConfig()
	for name, path := range contexts {
		cfg, err := clientcmd.LoadFromFile(path)
		if err != nil {
			t.Fatal(err)
		}
		kctx := cfg.Contexts[cfg.CurrentContext]
		if kctx == nil {
			t.Fatalf("%s has no current context", path)
		}
		merged.Clusters[name] = cfg.Clusters[kctx.Cluster]
		merged.AuthInfos[name] = cfg.AuthInfos[kctx.AuthInfo]
		merged.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	merged.CurrentContext = restartingContext
	path := filepath.Join(t.TempDir(), "fleet.kubeconfig")
	if err := clientcmd.WriteToFile(*merged, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// podChurn creates, labels and deletes pods in a namespace of the steady
// cluster until stopped: pods without a node, which its API server deletes
// at once.
type podChurn struct {
	cancel  context.CancelFunc
	done    chan struct{}
	mu      sync.Mutex
	changes int
	err     error
}

func startPodChurn(t *testing.T, cs kubernetes.Interface, ns string) *podChurn {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	c := &podChurn{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for i := 0; ctx.Err() == nil; i++ {
			if err := c.step(ctx, cs, ns, i); err != nil && ctx.Err() == nil {
				c.mu.Lock()
				c.err = err
				c.mu.Unlock()
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(300 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { _, _ = c.stop() })
	return c
}

// step creates pod i, labels pod i-1 and deletes pod i-2.
func (c *podChurn) step(ctx context.Context, cs kubernetes.Interface, ns string, i int) error {
	pods := cs.CoreV1().Pods(ns)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("steady-%d", i), Labels: map[string]string{"app": "steady"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/steady:v1"}}},
	}
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating %s: %w", pod.Name, err)
	}
	n := 1
	if i >= 1 {
		patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{"step":"%d"}}}`, i))
		if _, err := pods.Patch(ctx, fmt.Sprintf("steady-%d", i-1), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("labelling steady-%d: %w", i-1, err)
		}
		n++
	}
	if i >= 2 {
		if err := pods.Delete(ctx, fmt.Sprintf("steady-%d", i-2), metav1.DeleteOptions{}); err != nil {
			return fmt.Errorf("deleting steady-%d: %w", i-2, err)
		}
		n++
	}
	c.mu.Lock()
	c.changes += n
	c.mu.Unlock()
	return nil
}

// stop ends the churn and returns how many changes it made, and the error
// that stopped it early, if one did.
func (c *podChurn) stop() (int, error) {
	c.cancel()
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changes, c.err
}

// waitForSteady waits until the steady context's server events stop
// growing and the watch has printed its last one, and returns them.
func waitForSteady(t *testing.T, server *framework.ServerWatch, p *framework.Process) []framework.ServerEvent {
	t.Helper()
	var events []framework.ServerEvent
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, stepTimeout, true, func(context.Context) (bool, error) {
		evs, errs := server.Snapshot()
		if len(errs) > 0 {
			t.Fatalf("the steady API server's own watch broke, so it cannot be the reference: %v", errs)
		}
		if len(evs) == 0 || len(evs) != len(events) {
			events = evs
			return false, nil
		}
		last := evs[len(evs)-1]
		printed := printedEvents(t, p, steadyContext)
		for _, ev := range printed {
			if uidOf(ev.Object) == uidOf(last.Object) && rvOf(ev.Object) == rvOf(last.Object) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("waiting for the steady context's last event to be printed: %v", err)
	}
	return events
}

// compareExactly checks that printed holds every state the server sent, per
// object, in order and once, updates of bookkeeping fields alone aside, and
// nothing else.
func compareExactly(t *testing.T, server []framework.ServerEvent, printed []framework.WatchEvent) {
	t.Helper()
	want := map[string][]framework.ServerEvent{}
	var order []string
	for _, ev := range server {
		uid := uidOf(ev.Object)
		seq := want[uid]
		if len(seq) == 0 {
			order = append(order, uid)
		}
		if ev.Type == watch.Modified && len(seq) > 0 && reflect.DeepEqual(framework.WithoutBookkeeping(seq[len(seq)-1].Object), framework.WithoutBookkeeping(ev.Object)) {
			continue
		}
		want[uid] = append(seq, ev)
	}
	got := map[string][]framework.WatchEvent{}
	for _, ev := range printed {
		got[uidOf(ev.Object)] = append(got[uidOf(ev.Object)], ev)
	}
	if len(got) != len(want) {
		t.Errorf("the steady context: printed events of %d objects, its server sent %d", len(got), len(want))
	}
	for _, uid := range order {
		w, g := want[uid], got[uid]
		name := kindName(w[0].Object)
		if len(g) != len(w) {
			t.Errorf("the steady context: %s: printed %d states, its server sent %d", name, len(g), len(w))
			continue
		}
		for i := range w {
			if g[i].Type != string(w[i].Type) || rvOf(g[i].Object) != rvOf(w[i].Object) ||
				!reflect.DeepEqual(framework.WithoutBookkeeping(g[i].Object), framework.WithoutBookkeeping(w[i].Object)) {
				t.Errorf("the steady context: %s: state %d printed as %s at %s, its server sent %s at %s", name, i+1, g[i].Type, rvOf(g[i].Object), w[i].Type, rvOf(w[i].Object))
			}
			if i > 0 && g[i].Type == "MODIFIED" {
				framework.CheckPatch(t, g[i-1], g[i], framework.Bookkeeping...)
			}
		}
	}
}
