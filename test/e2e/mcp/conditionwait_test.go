package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rolloutDone is the condition of a finished rollout.
const rolloutDone = "object.status.updatedReplicas == object.spec.replicas && object.status.availableReplicas == object.spec.replicas"

// waitOutput is the wait tool's structured content.
type waitOutput struct {
	Contexts []struct {
		Error         string   `json:"error"`
		Met           bool     `json:"met"`
		TimedOut      bool     `json:"timedOut"`
		WaitedSeconds float64  `json:"waitedSeconds"`
		Objects       int      `json:"objects"`
		Pending       []string `json:"pending"`
		TotalPending  int      `json:"totalPending"`
	} `json:"contexts"`
}

func decodeWait(t *testing.T, structured string) waitOutput {
	t.Helper()
	var out waitOutput
	if err := json.Unmarshal([]byte(structured), &out); err != nil || len(out.Contexts) != 1 {
		t.Fatalf("wait = %s (%v), want one context", structured, err)
	}
	return out
}

func TestWaitTimesOut(t *testing.T) {
	c := deploymentTree(t)
	cs := mcpServer(t, c.AdminKubeconfig())
	began := time.Now()
	res, structured := call(t, cs, "wait", map[string]any{"types": "deployments.apps", "namespace": treeNamespace,
		"filter": "object.metadata.name == 'web'", "condition": "object.spec.replicas == 5", "timeoutSeconds": 2})
	if res.IsError {
		t.Fatalf("wait is an error: %s", textOf(res))
	}
	a := decodeWait(t, structured).Contexts[0]
	if a.Met || !a.TimedOut || a.Objects != 1 || !slices.Equal(a.Pending, []string{treeNamespace + "/web"}) {
		t.Errorf("wait = %s, want a timeout with %s/web pending", structured, treeNamespace)
	}
	if d := time.Since(began); d < 2*time.Second || d > 30*time.Second {
		t.Errorf("a wait of 2s took %s", d)
	}
	res, _ = call(t, cs, "wait", map[string]any{"types": "deployments.apps", "namespace": treeNamespace, "condition": "object.spec.("})
	if !res.IsError || !strings.Contains(textOf(res), "condition") {
		t.Errorf("wait with a bad condition = %s, want a tool error naming the condition", textOf(res))
	}
}

func TestWaitForRollout(t *testing.T) {
	c := deploymentTree(t)
	cs := mcpServer(t, c.AdminKubeconfig())
	deployments := c.AdminClient().AppsV1().Deployments(treeNamespace)
	// This cluster runs no controllers: the test finishes the rollout
	// itself, two seconds into the wait.
	done := make(chan error, 1)
	go func() {
		time.Sleep(2 * time.Second)
		d, err := deployments.Get(t.Context(), "web", metav1.GetOptions{})
		if err == nil {
			d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas = 2, 2, 2, 2
			_, err = deployments.UpdateStatus(t.Context(), d, metav1.UpdateOptions{})
		}
		done <- err
	}()
	res, structured := call(t, cs, "wait", map[string]any{"types": "deployments.apps", "namespace": treeNamespace,
		"filter": "object.metadata.name == 'web'", "condition": rolloutDone, "timeoutSeconds": 60})
	if err := <-done; err != nil {
		t.Fatalf("finishing the rollout: %v", err)
	}
	if res.IsError {
		t.Fatalf("wait is an error: %s", textOf(res))
	}
	a := decodeWait(t, structured).Contexts[0]
	if !a.Met || a.TimedOut || a.Objects != 1 || a.TotalPending != 0 || a.WaitedSeconds < 1 {
		t.Errorf("wait = %s, want the condition met after the rollout finished", structured)
	}
	if !strings.Contains(textOf(res), "condition met") {
		t.Errorf("text form = %q, want it to say the condition was met", textOf(res))
	}
}

// TestDeadContextBesideLiveOneEveryTool asks each tool of a live and a
// dead context: the dead one is an error entry beside the live one's
// answer, and the call is no tool error.
func TestDeadContextBesideLiveOneEveryTool(t *testing.T) {
	c := deploymentTree(t)
	kubeconfig, live := withDeadContext(t, c)
	cs := mcpServer(t, kubeconfig)
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"capacity", map[string]any{}, `"rows"`},
		{"tree", map[string]any{"roots": []string{"deployment/web"}, "namespace": treeNamespace}, `"lines"`},
		{"events", map[string]any{"object": "pod/web-5d9c7-a", "namespace": treeNamespace}, `"object"`},
		{"wait", map[string]any{"types": "deployments.apps", "namespace": treeNamespace, "condition": "true", "timeoutSeconds": 10}, `"met":true`},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			tt.args["context"] = "all"
			res, structured := call(t, cs, tt.tool, tt.args)
			if res.IsError {
				t.Fatalf("%s over a live and a dead context is an error: %s", tt.tool, structured)
			}
			var out struct {
				Contexts []map[string]json.RawMessage `json:"contexts"`
			}
			if err := json.Unmarshal([]byte(structured), &out); err != nil {
				t.Fatal(err)
			}
			answered := map[string]bool{}
			for _, a := range out.Contexts {
				var name string
				_ = json.Unmarshal(a["context"], &name)
				_, failed := a["error"]
				answered[name] = !failed
				if name == live {
					b, _ := json.Marshal(a)
					if failed || !strings.Contains(string(b), tt.want) {
						t.Errorf("%s of the live context = %s, want an answer holding %s", tt.tool, b, tt.want)
					}
				}
			}
			if want := map[string]bool{"dead": false, live: true}; fmt.Sprint(answered) != fmt.Sprint(want) {
				t.Errorf("%s answered %v, want %v (the dead context an error)", tt.tool, answered, want)
			}
		})
	}
}
