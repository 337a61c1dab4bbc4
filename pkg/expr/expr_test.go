package expr

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestMatch(t *testing.T) {
	bare := deploymentPod()
	bare.Spec.Containers[1].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: bare.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory]}
	young := deploymentPod()
	young.CreationTimestamp.Time = testNow.Add(-2 * time.Hour)
	done := rollingDeployment()
	done.Status.UpdatedReplicas, done.Status.Replicas = 6, 6

	tests := []struct {
		name string
		src  string
		obj  any
		want bool
	}{
		{"restarts > 3", "object.status.containerStatuses.exists(c, c.restartCount > 3)", deploymentPod(), true},
		{"restarts summed", "object.status.containerStatuses.map(c, c.restartCount).sum() > 10", deploymentPod(), false},
		{"missing memory limit", "object.spec.containers.exists(c, !has(c.resources.limits) || !('memory' in c.resources.limits))", deploymentPod(), true},
		{"all memory limits set", "object.spec.containers.exists(c, !has(c.resources.limits) || !('memory' in c.resources.limits))", bare, false},
		{"deployment not rolled out", "object.status.updatedReplicas < object.spec.replicas || object.status.replicas > object.status.updatedReplicas", rollingDeployment(), true},
		{"deployment rolled out", "object.status.updatedReplicas < object.spec.replicas || object.status.replicas > object.status.updatedReplicas", done, false},
		{"image not from registry", "object.spec.containers.exists(c, !c.image.startsWith('registry.example.com/'))", deploymentPod(), true},
		{"image host by regex", "object.spec.containers.all(c, c.image.find('^[^/]+') in ['registry.example.com', 'docker.io'])", deploymentPod(), true},
		{"older than a day", "now - timestamp(object.metadata.creationTimestamp) > duration('24h')", deploymentPod(), true},
		{"younger than a day", "now - timestamp(object.metadata.creationTimestamp) > duration('24h')", young, false},
		{"quantity greater", "quantity(object.spec.containers[0].resources.requests.cpu).isGreaterThan(quantity('100m'))", deploymentPod(), true},
		{"quantity less", "quantity(object.spec.containers[1].resources.requests.memory).isLessThan(quantity('64Mi'))", deploymentPod(), false},
		{"label", "object.metadata.labels.app == 'web' && object.metadata.?labels.missing.orValue('x') == 'x'", deploymentPod(), true},
		{"owner kind", "object.metadata.ownerReferences.exists(o, o.controller && o.kind == 'ReplicaSet')", deploymentPod(), true},
		{"url", "url('https://' + object.spec.containers[0].image).getHostname() == 'registry.example.com'", deploymentPod(), true},
		{"ip", "ip(object.status.podIP).family() == 4 && cidr('10.244.0.0/16').containsIP(object.status.podIP)", deploymentPod(), true},
		{"dyn result", "object.status.phase == 'Running' ? true : object.spec.nodeName", deploymentPod(), true},
		{"unstructured", "object.kind == 'Deployment' && object.spec.replicas == 6", mustUnstructured(t, rollingDeployment()), true},
		{"map", "object.metadata.name == 'x'", map[string]any{"metadata": map[string]any{"name": "x"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile("--filter", tt.src, Predicate)
			if err != nil {
				t.Fatalf("Compile(%q) error: %v", tt.src, err)
			}
			got, err := p.Match(context.Background(), tt.obj, testNow)
			if err != nil {
				t.Fatalf("Match(%q) error: %v", tt.src, err)
			}
			if got != tt.want {
				t.Errorf("Match(%q) = %v, want %v", tt.src, got, tt.want)
			}
		})
	}
}

func mustUnstructured(t testing.TB, obj any) *unstructured.Unstructured {
	t.Helper()
	m, err := ToObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func TestValues(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"string", "object.spec.nodeName", []string{"worker-1"}},
		{"images", "object.spec.containers.map(c, c.image)", []string{"registry.example.com/shop/web:1.4.2", "docker.io/library/envoy:v1.30"}},
		{"registry hosts", "object.spec.containers.map(c, c.image.split('/')[0])", []string{"registry.example.com", "docker.io"}},
		{"int", "object.status.containerStatuses.map(c, c.restartCount).sum()", []string{"5"}},
		{"bool", "object.status.containerStatuses.all(c, c.ready)", []string{"true"}},
		{"double", "double(object.status.containerStatuses[0].restartCount) / 2.0", []string{"2.5"}},
		{"whole double", "4.0", []string{"4"}},
		{"uint", "uint(object.status.containerStatuses[0].restartCount)", []string{"5"}},
		{"timestamp", "timestamp(object.metadata.creationTimestamp)", []string{"2026-11-22T00:00:00Z"}},
		{"duration", "now - timestamp(object.metadata.creationTimestamp)", []string{"36h0m0s"}},
		{"quantity", "quantity(object.spec.containers[0].resources.limits.memory).add(quantity('512Mi'))", []string{"1Gi"}},
		{"optional present", "object.metadata.?labels.tier", []string{"frontend"}},
		{"optional absent", "object.metadata.?labels.team", nil},
		{"null", "null", nil},
		{"empty list", "object.spec.containers.filter(c, c.name == 'none').map(c, c.name)", nil},
		{"label keys", "object.metadata.labels.map(k, k + '=' + object.metadata.labels[k]).sort()", []string{"app=web", "pod-template-hash=7d4b9c8f6d", "tier=frontend"}},
		{"dyn list", "object.status.podIPs.map(p, p.ip)", []string{"10.244.1.23"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile("--indexer", tt.src, Value)
			if err != nil {
				t.Fatalf("Compile(%q) error: %v", tt.src, err)
			}
			got, err := p.Values(context.Background(), deploymentPod(), testNow)
			if err != nil {
				t.Fatalf("Values(%q) error: %v", tt.src, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Values(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		kind Kind
		want string
	}{
		{"undeclared", "objet.metadata.name == 'x'", Predicate, "--filter: 1:1: undeclared reference to 'objet'"},
		{"undeclared later", "object.x == 1 &&\n  nw > object.y", Predicate, "--filter: 2:3: undeclared reference to 'nw'"},
		{"syntax", "object.metadata.name ==", Predicate, "--filter: 1:24: Syntax error: mismatched input '<EOF>'"},
		{"type", "1 + 'a' == 2", Predicate, "--filter: 1:3: found no matching overload for '_+_' applied to '(int, string)'"},
		{"wrong result", "object.metadata.name + 'x'", Predicate, "--filter: 1:1: expression has type string, want bool"},
		{"map value", "{'a': 1}", Value, "--indexer: 1:1: expression has type map(string, int), want a string"},
		{"nested list", "[[1]]", Value, "--indexer: 1:1: expression has type list(list(int)), want a string"},
		{"bad regex literal", "object.metadata.name.matches('[')", Predicate, "--filter: 1:30: invalid matches argument"},
		{"bad duration literal", "now - duration('1y') > now", Predicate, "--filter: 1:16: invalid duration argument"},
		{"empty", "", Predicate, "--filter: 1:1: Syntax error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flag := "--filter"
			if tt.kind == Value {
				flag = "--indexer"
			}
			p, err := Compile(flag, tt.src, tt.kind)
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile(%q) = %v, %v, want a *CompileError", tt.src, p, err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Compile(%q) error = %q, want prefix %q", tt.src, err, tt.want)
			}
		})
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		kind Kind
		want string
	}{
		{"missing field", "object.spec.containers[1].resources.limits.memory == '1Gi'", Predicate, "--filter: no such key: limits"},
		{"dyn not bool", "object.spec.nodeName == 'x' ? true : object.spec.nodeName", Predicate, "--filter: result is string, want bool"},
		{"dyn map value", "object.metadata.name == 'x' ? 'x' : object.metadata.labels", Value, "--filter: result is map, want a string"},
		{"dyn nested list", "object.metadata.name == 'x' ? dyn(['x']) : dyn([object.spec.containers.map(c, c.name)])", Value, "--filter: a list in a list"},
		{"cost limit", "object.spec.containers.all(a, lists.range(1000).all(b, lists.range(1000).all(c, b + c >= 0)))", Predicate, "--filter: operation cancelled: actual cost limit exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile("--filter", tt.src, tt.kind)
			if err != nil {
				t.Fatalf("Compile(%q) error: %v", tt.src, err)
			}
			if tt.kind == Predicate {
				_, err = p.Match(context.Background(), deploymentPod(), testNow)
			} else {
				_, err = p.Values(context.Background(), deploymentPod(), testNow)
			}
			var ee *EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("eval(%q) error = %v, want an *EvalError", tt.src, err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("eval(%q) error = %q, want prefix %q", tt.src, err, tt.want)
			}
			if got, want := ee.CostLimitExceeded(), tt.name == "cost limit"; got != want {
				t.Errorf("eval(%q) CostLimitExceeded() = %v, want %v", tt.src, got, want)
			}
		})
	}
}

func TestContextInterrupts(t *testing.T) {
	p, err := CompileWithLimit("--until", "lists.range(1000).all(b, lists.range(1000).all(c, b + c >= 0))", Predicate, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Match(ctx, deploymentPod(), testNow); !errors.Is(err, context.Canceled) {
		t.Errorf("Match with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestFailures(t *testing.T) {
	f := NewFailures("--filter", Predicate)
	if err := f.Err(); err != nil {
		t.Fatalf("Err() with no failures = %v, want nil", err)
	}
	p, err := Compile("--filter", "object.spec.containers[1].resources.limits.memory == '1Gi'", Predicate)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"default/web-1", "default/web-2", "default/web-3"} {
		if _, err := p.Match(context.Background(), deploymentPod(), testNow); err != nil {
			f.Add(key, err)
		}
	}
	want := "--filter: 3 objects counted as false after an evaluation error; first, on default/web-1: no such key: limits"
	if got := f.Err(); got == nil || got.Error() != want {
		t.Errorf("Err() = %v, want %q", got, want)
	}
	g := NewFailures("--indexer", Value)
	g.Add("kube-system/dns", errors.New("boom"))
	want = "--indexer: 1 object left out of the index after an evaluation error; first, on kube-system/dns: boom"
	if got := g.Err(); got == nil || got.Error() != want {
		t.Errorf("Err() = %v, want %q", got, want)
	}
}

func TestToObject(t *testing.T) {
	m, err := ToObject(deploymentPod())
	if err != nil {
		t.Fatal(err)
	}
	meta := m["metadata"].(map[string]any)
	if got, want := meta["creationTimestamp"], "2026-11-22T00:00:00Z"; got != want {
		t.Errorf("metadata.creationTimestamp = %#v, want %#v", got, want)
	}
	limits := m["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["resources"].(map[string]any)["limits"].(map[string]any)
	if got, want := limits["memory"], "512Mi"; got != want {
		t.Errorf("limits.memory = %#v, want %#v", got, want)
	}
	if got, want := m["status"].(map[string]any)["containerStatuses"].([]any)[0].(map[string]any)["restartCount"], int64(5); got != want {
		t.Errorf("restartCount = %#v, want %#v", got, want)
	}
	u := mustUnstructured(t, rollingDeployment())
	m2, err := ToObject(u)
	if err != nil {
		t.Fatal(err)
	}
	m2["x"] = 1
	if _, ok := u.Object["x"]; !ok {
		t.Errorf("ToObject(unstructured) copied the map, want it as it is")
	}
	if _, err := ToObject(nil); err == nil {
		t.Errorf("ToObject(nil) = nil error, want one")
	}
}
