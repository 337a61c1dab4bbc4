package restart

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	replicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// stepTimeout bounds each step that waits for the controllers or for a
// watch to catch up: long enough for a loaded two-core machine, where
// client-go's reflector may back off for up to a minute after an outage.
const stepTimeout = 3 * time.Minute

// outages is how many times a rollout stops the primary API server.
const outages = 3

// rollout drives a Deployment through the second API server while the
// primary, which the watches talk to, goes down and comes back, and keeps
// what the comparison needs: the server's own streams and the stretches of
// them during which every watch was connected and caught up.
type rollout struct {
	t       *testing.T
	c       *framework.Cluster
	second  *framework.APIServer
	ns      string
	server  *framework.ServerWatch
	watches []*framework.Process
	// context, when set, is the context whose events the watches' lines
	// must name (a watch across contexts); the others' are not the
	// rollout's.
	context string
	// live are the stretches of the server's events (indexes into its
	// Snapshot) sent while every watch was caught up and its API server up:
	// each state in them must be printed as it was sent.
	live []span
	// returns are the server's event counts when every watch said it
	// resumed after each outage.
	returns []int
}

// span is a half-open range of the server's events.
type span struct{ from, to int }

// newRollout creates ns through the second API server and starts that
// server's own watch streams of Deployments, ReplicaSets and Pods in it;
// the watches are added with watch before run.
func newRollout(t *testing.T, ns string) *rollout {
	t.Helper()
	c := framework.Current(t)
	second := secondAPIServer(t)
	dyn, err := dynamic.NewForConfig(second.Config())
	if err != nil {
		t.Fatalf("creating a client of the second API server: %v", err)
	}
	r := &rollout{t: t, c: c, second: second, ns: ns}
	r.kubectl("create", "namespace", ns)
	t.Cleanup(func() {
		framework.Run(t, framework.Cmd{Args: []string{"delete", "namespace", ns, "--wait=false"}, Kubeconfig: second.Kubeconfig})
	})
	r.server = framework.WatchServer(t, dyn, ns, deploymentsGVR, replicaSetsGVR, podsGVR)
	return r
}

// kubectl runs kubectl against the second API server and fails the test
// if it fails.
func (r *rollout) kubectl(args ...string) string {
	r.t.Helper()
	res := framework.Run(r.t, framework.Cmd{Args: args, Kubeconfig: r.second.Kubeconfig, Timeout: stepTimeout + 30*time.Second})
	if res.ExitCode != 0 {
		r.t.Fatalf("kubectl %s: %s", strings.Join(args, " "), res)
	}
	return res.Stdout
}

// settle waits until the Deployment has rolled out.
func (r *rollout) settle() {
	r.t.Helper()
	r.kubectl("rollout", "status", "deployment/web", "-n", r.ns, "--timeout="+stepTimeout.String())
}

// run rolls the Deployment out with 8 replicas, then, outages times,
// stops the primary API server (SIGKILL and SIGTERM in turn), changes the
// image and scales the Deployment down through the second while it is
// down, starts it again, and, as soon as every watch says it resumed, as a
// user would, scales it up again; at the end it deletes the Deployment and
// waits until everything is gone and every watch has printed it.
//
// It records what check compares: the server's events at each return (the
// state every watch must print as it resumes) and the live spans, from each
// return (or the start) to the next outage (or the end), whose every state
// every watch must print.
func (r *rollout) run() {
	r.t.Helper()
	down := false
	r.t.Cleanup(func() {
		if down {
			if err := r.c.StartAPIServer(); err != nil {
				r.t.Errorf("starting the primary API server again: %v", err)
			}
		}
	})
	r.kubectl("create", "deployment", "web", "-n", r.ns, "--image=registry.example.com/web:v1", "--replicas=8")
	r.settle()
	from := 0
	for outage := 1; outage <= outages; outage++ {
		// The watches have printed everything the server sent before
		// the outage: what the primary had not sent yet when it went
		// down comes with the relist, merged.
		r.live = append(r.live, span{from: from, to: r.caughtUp(fmt.Sprintf("before outage %d", outage))})
		stop, how := r.c.KillAPIServer, "killed"
		if outage%2 == 0 {
			stop, how = r.c.StopAPIServer, "stopped"
		}
		if err := stop(); err != nil {
			r.t.Fatal(err)
		}
		down = true
		r.kubectl("set", "image", "deployment/web", "-n", r.ns, fmt.Sprintf("web=registry.example.com/web:v%d", outage+1))
		r.kubectl("scale", "deployment/web", "-n", r.ns, fmt.Sprintf("--replicas=%d", 2+outage))
		r.settle()
		if err := r.c.StartAPIServer(); err != nil {
			r.t.Fatal(err)
		}
		down = false
		restarted := time.Now()
		from = r.resumed(outage)
		r.returns = append(r.returns, from)
		r.t.Logf("outage %d (API server %s): every watch said it resumed %s after the restart", outage, how, time.Since(restarted).Round(100*time.Millisecond))
		r.kubectl("scale", "deployment/web", "-n", r.ns, "--replicas=6")
		r.settle()
		r.caughtUp(fmt.Sprintf("after outage %d", outage))
	}
	r.kubectl("delete", "deployment/web", "-n", r.ns, "--wait=true")
	r.waitGone()
	r.live = append(r.live, span{from: from, to: r.caughtUp("after the Deployment was deleted")})
}

// resumed waits until every watch has said, for each of its types, that
// its watch resumed after the outage-th outage (and has not failed since),
// and returns how many events the server had sent by then.
func (r *rollout) resumed(outage int) int {
	r.t.Helper()
	types := []string{"deployments.apps", "replicasets.apps", "pods"}
	deadline := time.Now().Add(stepTimeout)
	for {
		n := r.serverLen()
		all := true
		for _, p := range r.watches {
			for _, typ := range types {
				all = all && hasResumed(p.Stderr(), typ, outage)
			}
		}
		if all {
			return n
		}
		if time.Now().After(deadline) {
			var stderrs strings.Builder
			for i, p := range r.watches {
				fmt.Fprintf(&stderrs, "watch %d stderr:\n%s\n", i+1, p.Stderr())
			}
			r.t.Fatalf("outage %d: not every watch said it resumed within %s:\n%s", outage, stepTimeout, stderrs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hasResumed reports whether stderr says typ's watch resumed at least n
// times, and nothing about typ after the last of them. A watch across
// contexts says it after its context's name.
func hasResumed(stderr, typ string, n int) bool {
	resumed := "watch of " + typ + " resumed; changes made meanwhile follow"
	count, last := 0, ""
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, " "+typ+" ") {
			last = line
			if strings.HasSuffix(line, resumed) {
				count++
			}
		}
	}
	return count >= n && strings.HasSuffix(last, resumed)
}

func (r *rollout) serverLen() int {
	events, _ := r.server.Snapshot()
	return len(events)
}
