package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// obj decodes JSON the way the unstructured decoder does: integers become
// int64, other numbers float64.
func obj(t testing.TB, s string) map[string]interface{} {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]interface{}
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return fromNumbers(m).(map[string]interface{})
}

func fromNumbers(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			x[k] = fromNumbers(e)
		}
	case []interface{}:
		for i, e := range x {
			x[i] = fromNumbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// paths parses paths or fails the test.
func paths(t testing.TB, ss ...string) []Path {
	t.Helper()
	var ps []Path
	for _, s := range ss {
		p, err := ParsePath(s)
		if err != nil {
			t.Fatalf("ParsePath(%q) = %v, want nil", s, err)
		}
		ps = append(ps, p)
	}
	return ps
}

// changeLines renders changes one per line for comparison in tests: the op
// symbol, the path, and the values as encoding/json writes them.
func changeLines(changes []Change) []string {
	var lines []string
	for _, c := range changes {
		var vals string
		switch {
		case c.Redacted:
			vals = "(hidden)"
			if c.Old != nil || c.New != nil {
				vals = "(hidden) WITH VALUES"
			}
		case c.Op == Added:
			vals = jsonString(c.New)
		case c.Op == Removed:
			vals = jsonString(c.Old)
		default:
			vals = jsonString(c.Old) + " → " + jsonString(c.New)
		}
		lines = append(lines, fmt.Sprintf("%s %s: %s", c.Op.Symbol(), c.Path, vals))
	}
	return lines
}

func jsonString(v interface{}) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("!%v", err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// podJSON is a typical running pod as the API server returns it.
const podJSON = `{
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {
    "name": "web-7d4b9c8f6d-x2x9p",
    "generateName": "web-7d4b9c8f6d-",
    "namespace": "shop",
    "uid": "0b8a4c5e-6a8e-4c71-9a1c-2f0d3c1e7b11",
    "resourceVersion": "48213",
    "creationTimestamp": "2025-03-01T10:00:00Z",
    "labels": {
      "app": "web",
      "app.kubernetes.io/name": "web",
      "pod-template-hash": "7d4b9c8f6d",
      "tier": "frontend"
    },
    "annotations": {
      "kubectl.kubernetes.io/restartedAt": "2025-03-01T09:59:00Z",
      "prometheus.io/scrape": "true"
    },
    "ownerReferences": [
      {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9c8f6d", "uid": "5e6f7a8b-1111-2222-3333-444455556666", "controller": true, "blockOwnerDeletion": true}
    ],
    "managedFields": [
      {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": "2025-03-01T10:00:00Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}}}}},
      {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": "2025-03-01T10:00:05Z", "fieldsType": "FieldsV1", "subresource": "status",
       "fieldsV1": {"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {}, "f:startTime": {}}}}
    ]
  },
  "spec": {
    "containers": [
      {
        "name": "web",
        "image": "nginx:1.27",
        "args": ["--port=8080", "--log-level=info"],
        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
        "env": [
          {"name": "MODE", "value": "production"},
          {"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}}
        ],
        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
        "volumeMounts": [
          {"name": "config", "mountPath": "/etc/nginx/conf.d", "readOnly": true},
          {"name": "kube-api-access-abcde", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}
        ],
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent"
      },
      {
        "name": "log-shipper",
        "image": "fluent/fluent-bit:3.1",
        "resources": {},
        "volumeMounts": [{"name": "kube-api-access-abcde", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent"
      }
    ],
    "volumes": [
      {"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}},
      {"name": "kube-api-access-abcde", "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}
      ]}}
    ],
    "restartPolicy": "Always",
    "terminationGracePeriodSeconds": 30,
    "dnsPolicy": "ClusterFirst",
    "serviceAccountName": "default",
    "serviceAccount": "default",
    "nodeName": "worker-1",
    "securityContext": {},
    "schedulerName": "default-scheduler",
    "tolerations": [
      {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
      {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
    ],
    "priority": 0,
    "enableServiceLinks": true,
    "preemptionPolicy": "PreemptLowerPriority"
  },
  "status": {
    "phase": "Running",
    "conditions": [
      {"type": "PodReadyToStartContainers", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-03-01T10:00:03Z"},
      {"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-03-01T10:00:00Z"},
      {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-03-01T10:00:05Z"},
      {"type": "ContainersReady", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-03-01T10:00:05Z"},
      {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-03-01T10:00:00Z"}
    ],
    "hostIP": "10.0.0.11",
    "hostIPs": [{"ip": "10.0.0.11"}],
    "podIP": "10.244.1.23",
    "podIPs": [{"ip": "10.244.1.23"}],
    "startTime": "2025-03-01T10:00:00Z",
    "containerStatuses": [
      {"name": "log-shipper", "state": {"running": {"startedAt": "2025-03-01T10:00:04Z"}}, "lastState": {}, "ready": true, "restartCount": 0,
       "image": "docker.io/fluent/fluent-bit:3.1", "imageID": "docker.io/fluent/fluent-bit@sha256:aaaa", "containerID": "containerd://bbbb", "started": true},
      {"name": "web", "state": {"running": {"startedAt": "2025-03-01T10:00:04Z"}}, "lastState": {}, "ready": true, "restartCount": 0,
       "image": "docker.io/library/nginx:1.27", "imageID": "docker.io/library/nginx@sha256:cccc", "containerID": "containerd://dddd", "started": true}
    ],
    "qosClass": "Burstable"
  }
}`

// podPair returns the pod and a copy of it with edit applied.
func podPair(t testing.TB, edit func(p map[string]interface{})) (old, new map[string]interface{}) {
	t.Helper()
	old = obj(t, podJSON)
	new = obj(t, podJSON)
	edit(new)
	return old, new
}

// field returns the map at the given keys of m.
func field(m map[string]interface{}, keys ...string) map[string]interface{} {
	for _, k := range keys {
		m = m[k].(map[string]interface{})
	}
	return m
}
