// Package events tests the event relation indexes of kubectl-informer
// (event.reason, event.type, event.message), query's --show-events column
// and `watch --where event.reason=…` against Events written by real
// components: a cluster with kube-controller-manager, kube-scheduler and
// nodes simulated by kwok, where a pod whose nodeSelector no node matches
// gets FailedScheduling from the scheduler. Every answer is compared with
// what the test computes from `kubectl get events -o json` by the rule the
// README states, or with what `kubectl describe` prints.
package events

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(2)) }

// waitTimeout bounds each wait for the scheduler or controllers on a loaded
// two-core machine.
const waitTimeout = 3 * time.Minute

// kubectl runs the real kubectl as the admin and fails the test if it fails.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Timeout: waitTimeout + 30*time.Second})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// informer runs `kubectl informer ARGS` as the admin, with env added to
// its environment, and fails the test unless it exits 0.
func informer(t *testing.T, env []string, args ...string) framework.Result {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Env: env})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// newNamespace creates a namespace named after prefix, deleted when the
// test ends.
func newNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000)
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	return ns
}

// unschedulablePod is a pod no node can take: its nodeSelector names a label
// no node has, so the scheduler reports FailedScheduling.
const unschedulablePod = `apiVersion: v1
kind: Pod
metadata:
  name: %s
spec:
  nodeSelector:
    example.com/no-such-node: "true"
  containers:
  - name: app
    image: registry.example.com/app:v1
`

// gatedPod is unschedulablePod held back from the scheduler by a
// scheduling gate: it has no event until the gate is removed.
const gatedPod = `apiVersion: v1
kind: Pod
metadata:
  name: %s
spec:
  schedulingGates:
  - name: example.com/hold
  nodeSelector:
    example.com/no-such-node: "true"
  containers:
  - name: app
    image: registry.example.com/app:v1
`

// schedulablePod is a pod any node takes.
const schedulablePod = `apiVersion: v1
kind: Pod
metadata:
  name: %s
spec:
  containers:
  - name: app
    image: registry.example.com/app:v1
`

// apply creates the manifest in ns with kubectl.
func apply(t *testing.T, ns, manifest string) {
	t.Helper()
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-n", ns, "-f", "-"}, Stdin: manifest}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
}

// event is the part of a core/v1 Event the test reads.
type event struct {
	Metadata struct {
		Name              string `json:"name"`
		Namespace         string `json:"namespace"`
		CreationTimestamp string `json:"creationTimestamp"`
	} `json:"metadata"`
	InvolvedObject struct {
		Kind      string `json:"kind"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		UID       string `json:"uid"`
	} `json:"involvedObject"`
	Reason         string `json:"reason"`
	Type           string `json:"type"`
	Message        string `json:"message"`
	FirstTimestamp string `json:"firstTimestamp"`
	LastTimestamp  string `json:"lastTimestamp"`
	EventTime      string `json:"eventTime"`
	Series         *struct {
		LastObservedTime string `json:"lastObservedTime"`
	} `json:"series"`
}

// lastSeen is when the event last happened, by the README's rule: the
// series' last observation, else lastTimestamp, else eventTime, else
// firstTimestamp, else the creation time. The RFC 3339 strings of one
// cluster compare as times once parsed.
func (e event) lastSeen(t *testing.T) time.Time {
	t.Helper()
	for _, s := range []string{seriesLast(e), e.LastTimestamp, e.EventTime, e.FirstTimestamp, e.Metadata.CreationTimestamp} {
		if s == "" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("event %s: time %q: %v", e.Metadata.Name, s, err)
		}
		return at
	}
	return time.Time{}
}

func seriesLast(e event) string {
	if e.Series == nil {
		return ""
	}
	return e.Series.LastObservedTime
}

// getEvents lists Events with the real kubectl: args select them
// (-n NS or -A, --field-selector …).
func getEvents(t *testing.T, args ...string) []event {
	t.Helper()
	var list struct {
		Items []event `json:"items"`
	}
	out := kubectl(t, append([]string{"get", "events", "-o", "json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("decoding kubectl get events: %v", err)
	}
	return list.Items
}

// pod is the part of a pod the test reads.
type pod struct {
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
		UID       string `json:"uid"`
	} `json:"metadata"`
}

// getPods lists pods with the real kubectl (-n NS or -A).
func getPods(t *testing.T, args ...string) []pod {
	t.Helper()
	var list struct {
		Items []pod `json:"items"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, append([]string{"get", "pods", "-o", "json"}, args...)...)), &list); err != nil {
		t.Fatalf("decoding kubectl get pods: %v", err)
	}
	return list.Items
}

// about reports whether e is about p by the README's rule: by UID when the
// event names one, else by kind, namespace and name.
func about(e event, p pod) bool {
	if e.InvolvedObject.UID != "" {
		return e.InvolvedObject.UID == p.Metadata.UID
	}
	return e.InvolvedObject.Kind == "Pod" && e.InvolvedObject.Namespace == p.Metadata.Namespace && e.InvolvedObject.Name == p.Metadata.Name
}

// podsWithEvents returns the pods that events are about, as sorted
// "NS/NAME" keys.
func podsWithEvents(pods []pod, events []event) []string {
	var out []string
	for _, p := range pods {
		for _, e := range events {
			if about(e, p) {
				out = append(out, p.Metadata.Namespace+"/"+p.Metadata.Name)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// waitForEvent waits until kubectl lists an event of reason about the pod
// ns/name, and returns kubectl's list of the pod's events then.
func waitForEvent(t *testing.T, ns, name, reason string) []event {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		events := getEvents(t, "-n", ns, "--field-selector", "involvedObject.kind=Pod,involvedObject.name="+name)
		for _, e := range events {
			if e.Reason == reason {
				return events
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event about pod %s/%s after %s; its events: %+v", reason, ns, name, waitTimeout, events)
		}
		time.Sleep(time.Second)
	}
}

// lines splits output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// namespacedNames turns the rows of a query printed with customColumns
// (NAMESPACE and NAME) into sorted "NS/NAME" keys.
func namespacedNames(out string) []string {
	var keys []string
	for _, l := range lines(out) {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] != "NAMESPACE" {
			keys = append(keys, f[0]+"/"+f[1])
		}
	}
	sort.Strings(keys)
	return keys
}

// customColumns prints a query's objects as NAMESPACE and NAME.
const customColumns = "custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name"

// distinct returns the sorted distinct values of values.
func distinct(values []string) []string {
	out := slices.Clone(values)
	sort.Strings(out)
	return slices.Compact(out)
}
