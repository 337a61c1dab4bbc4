package mcp

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

var eventsOnce sync.Once

// withEvents adds Events about the pods of deploymentTree, a minute
// apart, as the scheduler and the kubelet would write them.
func withEvents(t *testing.T) *framework.Cluster {
	t.Helper()
	c := deploymentTree(t)
	eventsOnce.Do(func() {
		cs := c.AdminClient()
		start := time.Now().Add(-10 * time.Minute).Truncate(time.Second)
		for i, e := range []struct{ pod, typ, reason, message string }{
			{"web-5d9c7-a", corev1.EventTypeNormal, "Scheduled", "Successfully assigned m-tree/web-5d9c7-a to node-1"},
			{"web-5d9c7-b", corev1.EventTypeNormal, "Killing", "Stopping container web"},
			{"web-5d9c7-a", corev1.EventTypeNormal, "Pulled", "Container image already present on machine"},
			{"web-5d9c7-a", corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container web"},
		} {
			at := metav1.NewTime(start.Add(time.Duration(i) * time.Minute))
			ev := &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{Name: e.pod + "." + strings.ToLower(e.reason)},
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: treeNamespace, Name: e.pod, APIVersion: "v1"},
				Type:           e.typ, Reason: e.reason, Message: e.message, Count: int32(i + 1),
				FirstTimestamp: at, LastTimestamp: at, Source: corev1.EventSource{Component: "kubelet"},
			}
			if _, err := cs.CoreV1().Events(treeNamespace).Create(t.Context(), ev, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatalf("creating event %s: %v", ev.Name, err)
			}
		}
	})
	return c
}

// eventsOutput is the events tool's structured content.
type eventsOutput struct {
	Contexts []struct {
		Error  string `json:"error"`
		Object string `json:"object"`
		Events []struct {
			Type    string `json:"type"`
			Reason  string `json:"reason"`
			Count   int    `json:"count"`
			Message string `json:"message"`
		} `json:"events"`
		TotalEvents int `json:"totalEvents"`
	} `json:"contexts"`
}

// expectedReasons reads the Events of the tree namespace with kubectl get
// -o json and returns the reasons of those about pod of type typ (any
// when ""), newest first.
func expectedReasons(t *testing.T, pod, typ string) []string {
	t.Helper()
	r := framework.Kubectl(t, t.Context(), "get", "events", "-n", treeNamespace, "-o", "json")
	if r.ExitCode != 0 {
		t.Fatalf("kubectl get events: %s", r)
	}
	var list corev1.EventList
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatal(err)
	}
	var about []corev1.Event
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == "Pod" && e.InvolvedObject.Name == pod && (typ == "" || e.Type == typ) {
			about = append(about, e)
		}
	}
	sort.SliceStable(about, func(i, j int) bool { return about[j].LastTimestamp.Before(&about[i].LastTimestamp) })
	var reasons []string
	for _, e := range about {
		reasons = append(reasons, e.Reason)
	}
	return reasons
}

func TestEventsAboutAPod(t *testing.T) {
	c := withEvents(t)
	cs := mcpServer(t, c.AdminKubeconfig())
	for _, typ := range []string{"", corev1.EventTypeWarning} {
		t.Run("type "+typ, func(t *testing.T) {
			want := expectedReasons(t, "web-5d9c7-a", typ)
			res, structured := call(t, cs, "events", map[string]any{"object": "pod/web-5d9c7-a", "namespace": treeNamespace, "type": typ})
			if res.IsError {
				t.Fatalf("events is an error: %s", textOf(res))
			}
			var out eventsOutput
			if err := json.Unmarshal([]byte(structured), &out); err != nil || len(out.Contexts) != 1 {
				t.Fatalf("events = %s (%v), want one context", structured, err)
			}
			a := out.Contexts[0]
			var got []string
			for _, e := range a.Events {
				got = append(got, e.Reason)
			}
			if !slices.Equal(got, want) || a.TotalEvents != len(want) || a.Object != "Pod/web-5d9c7-a" {
				t.Errorf("events about %s = %v (total %d), want %v newest first (kubectl get events -o json)", a.Object, got, a.TotalEvents, want)
			}
			if !strings.Contains(textOf(res), "BackOff") {
				t.Errorf("text form = %q, want the BackOff event", textOf(res))
			}
		})
	}
	res, _ := call(t, cs, "events", map[string]any{"object": "nosuchthings/x"})
	if !res.IsError || !strings.Contains(textOf(res), "nosuchthings") {
		t.Errorf("events about nosuchthings/x = %s, want a tool error naming the type", textOf(res))
	}
}
