package expr

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestWatchFilterEntersAndLeaves watches pods with a CEL filter on a label
// and checks that a pod enters the watch as ADDED when it starts passing and
// leaves it as DELETED when it stops, as with --where, and that pods that
// never pass are never printed.
func TestWatchFilterEntersAndLeaves(t *testing.T) {
	c := framework.Current(t)
	const ns = "watch-filter"
	framework.CreateNamespace(t, c.AdminClient(), ns)
	const timeout = 2 * time.Minute

	p := framework.StartWatch(t, "pods", "-n", ns, "-o", "json",
		"--filter", `object.metadata.?labels.tier.orValue('') == 'gold' && object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))`)

	kubectl(t, "run", "plain", "-n", ns, "--image=registry.example.com/plain:v1")
	kubectl(t, "run", "other", "-n", ns, "--image=docker.io/other:v1", "--labels=tier=gold")
	kubectl(t, "run", "born-gold", "-n", ns, "--image=registry.example.com/gold:v1", "--labels=tier=gold")
	expectEvent(t, p, timeout, "ADDED", "born-gold")

	kubectl(t, "label", "pod", "plain", "-n", ns, "tier=gold")
	ev := expectEvent(t, p, timeout, "ADDED", "plain")
	if got := framework.NestedString(ev.Object, "metadata", "labels", "tier"); got != "gold" {
		t.Errorf("plain entered with label tier %q, want gold", got)
	}
	kubectl(t, "label", "pod", "plain", "-n", ns, "tier=silver", "--overwrite")
	ev = expectEvent(t, p, timeout, "DELETED", "plain")
	if got := framework.NestedString(ev.Object, "metadata", "labels", "tier"); got != "silver" {
		t.Errorf("plain left with label tier %q, want silver (the state that left)", got)
	}
	kubectl(t, "delete", "pod", "born-gold", "-n", ns, "--wait=false")
	expectEvent(t, p, timeout, "DELETED", "born-gold")
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	r := p.Wait()
	if r.ExitCode != 0 {
		t.Fatalf("watch did not exit 0 on SIGINT: %s", r)
	}
	if strings.Contains(r.Stdout, `"name":"other"`) {
		t.Errorf("the watch printed pod other, whose image fails the filter:\n%s", r.Stdout)
	}
	if strings.Contains(r.Stderr, "warning") {
		t.Errorf("stderr has warnings: %s", r.Stderr)
	}
}

// rolloutDone is the --until condition of a finished rollout to image v2.
const rolloutDone = `object.spec.template.spec.containers[0].image == 'registry.example.com/web:v2' &&
  object.metadata.generation == object.status.observedGeneration &&
  object.status.?updatedReplicas.orValue(0) == object.spec.replicas &&
  object.status.?availableReplicas.orValue(0) == object.spec.replicas &&
  object.status.?replicas.orValue(0) == object.spec.replicas`

// TestUntilRollout waits for a rollout with watch deploy/web --until while
// kubectl set image rolls a new image out, and checks that the watch
// printed the rollout and exited 0 when it was done, not before; then that a
// condition already true returns at once, and --until-all over pods.
func TestUntilRollout(t *testing.T) {
	c := framework.Current(t)
	const ns = "until"
	framework.CreateNamespace(t, c.AdminClient(), ns)
	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=3")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())

	p := framework.StartWatch(t, "deploy/web", "-n", ns, "-o", "json", "--timeout", rolloutTimeout.String(), "--until", rolloutDone)
	kubectl(t, "set", "image", "deployment/web", "-n", ns, "web=registry.example.com/web:v2")
	select {
	case <-p.Done():
	case <-time.After(rolloutTimeout + time.Minute):
		t.Fatalf("the watch did not end after the rollout; stderr:\n%s", p.Stderr())
	}
	r := p.Wait()
	if r.ExitCode != 0 {
		t.Fatalf("watch --until: %s", r)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	first, last := framework.DecodeEvent(t, lines[0]), framework.DecodeEvent(t, lines[len(lines)-1])
	if !strings.Contains(string(first.Patch), `"value":"registry.example.com/web:v2"`) {
		t.Errorf("the first event printed is %s, want the image change to v2", first)
	}
	if !strings.Contains(r.Stderr, "--until: the condition holds for deployments.apps/web\n") {
		t.Errorf("stderr does not say the condition was met:\n%s", r.Stderr)
	}
	// When the watch ended, the rollout was done: the server says so now,
	// and its last printed state said so too.
	status := kubectl(t, "get", "deploy/web", "-n", ns, "-o", "jsonpath={.status.updatedReplicas} {.status.availableReplicas} {.status.replicas} {.metadata.generation} {.status.observedGeneration}")
	if f := strings.Fields(status); len(f) != 5 || f[0] != "3" || f[1] != "3" || f[2] != "3" || f[3] != f[4] {
		t.Errorf("after the watch ended, deploy/web status = %q, want 3 updated, available and replicas, and the generation observed", status)
	}
	var got []string
	for _, f := range []string{"updatedReplicas", "availableReplicas", "replicas", "observedGeneration"} {
		got = append(got, fmt.Sprint(framework.Nested(last.Object, "status", f)))
	}
	got = append(got, fmt.Sprint(framework.Nested(last.Object, "metadata", "generation")))
	if got[0] != "3" || got[1] != "3" || got[2] != "3" || got[3] != got[4] {
		t.Errorf("the last state printed has updated, available, replicas, observedGeneration, generation = %v; want the rollout done (%d events printed)", got, len(lines))
	}
	rollout := kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout=1s")
	t.Logf("kubectl rollout status after the watch: %s", strings.TrimSpace(rollout))

	// Already true: it returns at once, without waiting for a change.
	start := time.Now()
	r = informer(t, "watch", "deploy/web", "-n", ns, "--until", rolloutDone)
	if !strings.Contains(r.Stderr, "holds for deployments.apps/web already") || r.Stdout != "" {
		t.Errorf("watch --until on a finished rollout: %s\nwant nothing on stdout and 'already' on stderr", r)
	}
	t.Logf("watch --until on a condition already true took %s", time.Since(start).Round(time.Millisecond))

	// Every pod, with no names: --until-all.
	r = informer(t, "watch", "pods", "-n", ns, "--timeout", rolloutTimeout.String(),
		"--until-all", `object.status.phase == 'Running' && object.spec.containers[0].image.endsWith(':v2') && !has(object.metadata.deletionTimestamp)`)
	if !strings.Contains(r.Stderr, "--until-all: the condition holds for every watched object") {
		t.Errorf("watch --until-all: %s", r)
	}
}

// TestUntilTimeout checks that --until with --timeout exits 1 and says what
// it waited for when the condition does not become true.
func TestUntilTimeout(t *testing.T) {
	c := framework.Current(t)
	const ns = "until-timeout"
	framework.CreateNamespace(t, c.AdminClient(), ns)
	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=1")

	until := `object.spec.replicas == 7`
	r := framework.Run(t, framework.Cmd{Args: []string{"informer", "watch", "deploy/web", "-n", ns, "--until", until, "--timeout", "3s"}})
	if r.ExitCode != 1 {
		t.Fatalf("watch --until that never holds, --timeout 3s: %s\nwant exit code 1", r)
	}
	want := `error: timed out after 3s waiting for --until "object.spec.replicas == 7" to hold for deployments.apps/web (it holds for 0 of the 1 watched objects)`
	if !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", r.Stderr, want)
	}
	if r.Duration > 30*time.Second {
		t.Errorf("watch --timeout 3s took %s", r.Duration)
	}

	// A named object that does not exist is waited for too.
	r = framework.Run(t, framework.Cmd{Args: []string{"informer", "watch", "deploy/nothing", "-n", ns, "--until", "true", "--timeout", "2s"}})
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, "to hold for deployments.apps/nothing (it holds for 0 of the 0 watched objects)") {
		t.Errorf("watch deploy/nothing --until true --timeout 2s: %s\nwant exit 1 waiting for it", r)
	}
}

// expectEvent reads events until one that is not an update of a pod in the
// watch (the scheduler and kwok update pods as they run), and checks its
// type and name.
func expectEvent(t *testing.T, p *framework.Process, timeout time.Duration, typ, name string) framework.WatchEvent {
	t.Helper()
	for {
		ev := framework.NextEvent(t, p, timeout)
		if ev.Type == "MODIFIED" && !(typ == "MODIFIED" && ev.Name() == name) {
			continue
		}
		if ev.Type != typ || ev.Name() != name {
			t.Fatalf("next event = %s, want %s %s", ev, typ, name)
		}
		return ev
	}
}
