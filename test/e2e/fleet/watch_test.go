package fleet

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

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
