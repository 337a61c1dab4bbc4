package fleet

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestFleetWatchNamesEachEventsContext watches pods in two contexts and a
// dead one: the dead one is named on stderr, and each event of the others
// names its context, in JSON and in text.
func TestFleetWatchNamesEachEventsContext(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	a, b := f.Contexts[0], f.Contexts[1]
	for _, output := range []string{"json", "text"} {
		t.Run(output, func(t *testing.T) {
			p := framework.Start(t, framework.Cmd{
				Args:       []string{"informer", "watch", "pods", "-n", namespace, "--context", a + "," + b + "," + f.Dead, "-o", output},
				Kubeconfig: f.Kubeconfig,
				Timeout:    5 * time.Minute,
			})
			deadline := time.Now().Add(2 * time.Minute)
			for _, c := range []string{a, b} {
				for !strings.Contains(p.Stderr(), "context "+c+": synced") {
					if time.Now().After(deadline) {
						t.Fatalf("context %s did not sync in time; stderr:\n%s", c, p.Stderr())
					}
					time.Sleep(100 * time.Millisecond)
				}
			}
			if n := strings.Count(p.Stderr(), "error: context "+f.Dead+": "); n != 1 {
				t.Errorf("the dead context is named %d times on stderr, want once:\n%s", n, p.Stderr())
			}
			want := map[string]string{} // pod name → its context
			for _, c := range []string{a, b} {
				name := fmt.Sprintf("watched-%s-%s", output, c)
				want[name] = c
				r := framework.Run(t, framework.Cmd{Args: []string{"create", "-f", "-", "--context", c}, Kubeconfig: f.Kubeconfig, Stdin: podYAML(name, namespace, "node-0", "10m")})
				if r.ExitCode != 0 {
					t.Fatalf("creating %s in %s: %s", name, c, r)
				}
			}
			for len(want) > 0 {
				line, err := p.NextLine(time.Minute)
				if err != nil {
					t.Fatalf("waiting for the ADDED events of %v: %v; stderr:\n%s", want, err, p.Stderr())
				}
				var ctx, typ, name string
				if output == "json" {
					var ev struct {
						Context string `json:"context"`
						framework.WatchEvent
					}
					if err := json.Unmarshal([]byte(line), &ev); err != nil {
						t.Fatalf("event %q: %v", line, err)
					}
					ctx, typ, name = ev.Context, ev.Type, ev.Name()
				} else {
					fields := strings.Fields(line)
					if len(fields) < 3 {
						continue // a diff line
					}
					ctx, typ, name = fields[0], fields[1], strings.TrimPrefix(fields[2], "pod/")
				}
				if typ != "ADDED" {
					continue
				}
				if c, ok := want[name]; ok {
					if ctx != c {
						t.Errorf("ADDED %s names context %q, want %q: %s", name, ctx, c, line)
					}
					delete(want, name)
				}
			}
			if err := p.Interrupt(); err != nil {
				t.Fatal(err)
			}
			if r := p.Wait(); r.ExitCode != 1 {
				t.Errorf("exit code %d after Ctrl-C with a dead context, want 1: %s", r.ExitCode, r)
			}
		})
	}
}

// waitStderr waits up to a minute until the watch's stderr contains s.
func waitStderr(t *testing.T, p *framework.Process, s string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(p.Stderr(), s) {
		select {
		case <-p.Done():
			t.Fatalf("the watch exited before stderr said %q: %s", s, p.Wait())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr did not say %q in time:\n%s", s, p.Stderr())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runKubectl runs kubectl with the fleet's kubeconfig and fails the test if it
// fails.
func runKubectl(t *testing.T, f *framework.Fleet, stdin string, args ...string) {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Kubeconfig: f.Kubeconfig, Stdin: stdin})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
}

// TestFleetWatchUntilEveryContext watches pods in two contexts with
// --until: the condition comes true in the first context, whose watch
// ends there, while the second context's events are still printed; once
// it holds in the second context too, the fleet watch exits 0.
func TestFleetWatchUntilEveryContext(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	a, b := f.Contexts[0], f.Contexts[1]
	for _, c := range []string{a, b} {
		runKubectl(t, f, "", "delete", "pod", "until-"+c, "-n", namespace, "--ignore-not-found", "--wait=false", "--context", c)
	}
	p := framework.Start(t, framework.Cmd{
		Args: []string{"informer", "watch", "pods", "-n", namespace, "--context", a + "," + b,
			"--until", "object.metadata.?labels.?fleetuntil.orValue('') == 'yes'"},
		Kubeconfig: f.Kubeconfig,
		Timeout:    5 * time.Minute,
	})
	for _, c := range []string{a, b} {
		waitStderr(t, p, "context "+c+": synced")
	}
	labelled := strings.Replace(podYAML("until-"+a, namespace, "node-0", "10m"), "labels: {app: fleet-test}", "labels: {app: fleet-test, fleetuntil: \"yes\"}", 1)
	runKubectl(t, f, labelled, "create", "-f", "-", "--context", a)
	waitStderr(t, p, "context "+a+": --until: the condition holds for pod/until-"+a)

	// The first context has met the condition; the second is still watched.
	runKubectl(t, f, podYAML("until-"+b, namespace, "node-0", "10m"), "create", "-f", "-", "--context", b)
	if _, err := p.WaitForLine(2*time.Minute, func(line string) bool {
		fields := strings.Fields(line)
		return len(fields) >= 3 && fields[0] == b && fields[1] == "ADDED" && fields[2] == "pod/until-"+b
	}); err != nil {
		t.Fatalf("no ADDED event of pod/until-%s in context %s after the condition held in %s: %v; stderr:\n%s", b, b, a, err, p.Stderr())
	}
	select {
	case <-p.Done():
		t.Fatalf("the watch ended before the condition held in %s: %s", b, p.Wait())
	default:
	}
	runKubectl(t, f, "", "label", "pod", "until-"+b, "fleetuntil=yes", "-n", namespace, "--context", b)
	r := p.Wait()
	if r.ExitCode != 0 {
		t.Fatalf("exit code %d once the condition held in every context, want 0: %s", r.ExitCode, r)
	}
	if !strings.Contains(r.Stderr, "context "+b+": --until: the condition holds for pod/until-"+b) {
		t.Errorf("stderr does not say the condition held in %s:\n%s", b, r.Stderr)
	}
}

// TestFleetWatchMaxEventsYAML prints the synced pods of two contexts as
// ADDED events in YAML with --max-events 3: exactly three documents, over
// both contexts' events, each naming a context of the watch.
func TestFleetWatchMaxEventsYAML(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	a, b := f.Contexts[0], f.Contexts[1]
	r := framework.Run(t, framework.Cmd{
		Args:       []string{"informer", "watch", "pods", "-n", namespace, "--context", a + "," + b, "--initial", "--max-events", "3", "-o", "yaml"},
		Kubeconfig: f.Kubeconfig,
		Timeout:    5 * time.Minute,
	})
	if r.ExitCode != 0 {
		t.Fatalf("exit code %d, want 0: %s", r.ExitCode, r)
	}
	docs := strings.Split(strings.TrimPrefix(r.Stdout, "---\n"), "\n---\n")
	if len(docs) != 3 {
		t.Fatalf("%d YAML documents, want 3:\n%s", len(docs), r.Stdout)
	}
	for _, d := range docs {
		var ev struct {
			Context string `json:"context"`
			Type    string `json:"type"`
			Object  struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if err := yaml.Unmarshal([]byte(d), &ev); err != nil {
			t.Fatalf("document %q: %v", d, err)
		}
		if (ev.Context != a && ev.Context != b) || ev.Type != "ADDED" || ev.Object.Metadata.Name == "" {
			t.Errorf("document names context %q, type %q, pod %q; want context %s or %s, ADDED, a pod:\n%s", ev.Context, ev.Type, ev.Object.Metadata.Name, a, b, d)
		}
		if !strings.HasPrefix(d, "context: ") {
			t.Errorf("document does not start with its context:\n%s", d)
		}
	}
}

// TestFleetWatchWhereContext chooses one of two contexts with --where
// context=…: every event printed is of that context.
func TestFleetWatchWhereContext(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	a, b := f.Contexts[0], f.Contexts[1]
	r := framework.Run(t, framework.Cmd{
		Args:       []string{"informer", "watch", "pods", "-n", namespace, "--context", a + "," + b, "--where", "context=" + b, "--initial", "--max-events", "2", "-o", "name"},
		Kubeconfig: f.Kubeconfig,
		Timeout:    5 * time.Minute,
	})
	if r.ExitCode != 0 {
		t.Fatalf("exit code %d, want 0: %s", r.ExitCode, r)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d events, want 2:\n%s", len(lines), r.Stdout)
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, b+"/ADDED pod/") {
			t.Errorf("event %q is not an ADDED pod of context %s", line, b)
		}
	}
	if strings.Contains(r.Stderr, "context "+a+":") {
		t.Errorf("stderr names context %s, which --where left out:\n%s", a, r.Stderr)
	}
}
