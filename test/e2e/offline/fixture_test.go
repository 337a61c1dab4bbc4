package offline

import (
	"strings"
	"testing"
)

// workloads is what the cluster runs: Deployments with a Service and a
// ConfigMap in shop, a StatefulSet with its headless Service in data, a
// DaemonSet, a completed Job and a pod no node can take in ops, and a
// Deployment in default.
const workloads = `
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {team: shop}}
---
apiVersion: v1
kind: Namespace
metadata: {name: data, labels: {team: data}}
---
apiVersion: v1
kind: Namespace
metadata: {name: ops}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: shop-config, namespace: shop, labels: {app: web}}
data: {LOG_LEVEL: info, CART_URL: "http://cart:8080"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: frontend}}
    spec:
      containers:
      - name: web
        image: registry.example.com/shop/web:1.0
        ports: [{name: http, containerPort: 8080}]
        envFrom: [{configMapRef: {name: shop-config}}]
        resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 250m, memory: 128Mi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cart, namespace: shop, labels: {app: cart}}
spec:
  replicas: 2
  selector: {matchLabels: {app: cart}}
  template:
    metadata: {labels: {app: cart, tier: backend}}
    spec:
      containers:
      - name: cart
        image: registry.example.com/shop/cart:2.3
        ports: [{name: http, containerPort: 8080}]
        resources: {requests: {cpu: 50m, memory: 32Mi}, limits: {memory: 64Mi}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata: {name: cart, namespace: shop, labels: {app: cart}}
spec:
  selector: {app: cart}
  ports: [{name: http, port: 8080, targetPort: http}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: db-config, namespace: data}
data: {max_connections: "100"}
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: data}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{name: sql, port: 5432}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data, labels: {app: db}}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db, tier: storage}}
    spec:
      containers:
      - name: db
        image: registry.example.com/postgres:17
        ports: [{name: sql, containerPort: 5432}]
        resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: "1", memory: 2Gi}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: ops, labels: {app: agent}}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - name: agent
        image: registry.example.com/ops/agent:0.9
        resources: {requests: {cpu: 10m, memory: 16Mi}, limits: {cpu: 100m, memory: 64Mi}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: ops}
spec:
  template:
    metadata: {labels: {app: report}}
    spec:
      restartPolicy: Never
      containers:
      - name: report
        image: registry.example.com/ops/report:1.0
        resources: {requests: {cpu: 200m, memory: 128Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: ops, labels: {app: huge}}
spec:
  containers:
  - name: huge
    image: registry.example.com/ops/huge:1.0
    resources: {requests: {cpu: "64", memory: 1Ti}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: hello, namespace: default, labels: {app: hello}}
spec:
  replicas: 1
  selector: {matchLabels: {app: hello}}
  template:
    metadata: {labels: {app: hello}}
    spec:
      containers:
      - name: hello
        image: registry.example.com/hello:1.0
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
              size: {type: integer}
    additionalPrinterColumns:
    - {name: Color, type: string, jsonPath: .spec.color}
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`

// widgets are custom resources of the CRD in workloads.
const widgets = `
apiVersion: example.com/v1
kind: Widget
metadata: {name: gear, namespace: shop, labels: {app: web}}
spec: {color: red, size: 3}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: sprocket, namespace: shop}
spec: {color: blue, size: 5}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: cog, namespace: data}
spec: {color: red, size: 1}
`

// fixture is what createWorkloads made that the questions name.
type fixture struct {
	// cartPod is the name of one of Deployment cart's pods.
	cartPod string
}

// createWorkloads creates workloads and widgets, rolls Deployment web out
// to a second image (so it has an old, empty ReplicaSet), labels a node,
// and waits until every controller is done: rollouts complete, the Job
// complete, the pod no node can take marked unschedulable.
func createWorkloads(t *testing.T) fixture {
	t.Helper()
	kubectlStdin(t, workloads, "apply", "-f", "-")
	kubectl(t, "wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=1m")
	kubectlStdin(t, widgets, "apply", "-f", "-")
	kubectl(t, "label", "node", "kwok-node-1", "team=blue", "--overwrite")
	kubectl(t, "rollout", "status", "deployment/web", "-n", "shop", "--timeout="+rolloutTimeout.String())
	kubectl(t, "set", "image", "deployment/web", "-n", "shop", "web=registry.example.com/shop/web:1.1")
	for _, w := range []struct{ ns, name string }{
		{"shop", "deployment/web"}, {"shop", "deployment/cart"}, {"data", "statefulset/db"},
		{"ops", "daemonset/agent"}, {"default", "deployment/hello"},
	} {
		kubectl(t, "rollout", "status", w.name, "-n", w.ns, "--timeout="+rolloutTimeout.String())
	}
	kubectl(t, "wait", "job/report", "-n", "ops", "--for=condition=Complete", "--timeout="+rolloutTimeout.String())
	kubectl(t, "wait", "pod/huge", "-n", "ops", "--for=condition=PodScheduled=false", "--timeout="+rolloutTimeout.String())
	// The old ReplicaSet of web has let its pods go.
	waitUntil(t, rolloutTimeout, "the pods of web's first ReplicaSet to be gone", func() bool {
		out := kubectl(t, "get", "pods", "-n", "shop", "-l", "app=web", "-o", "jsonpath={range .items[*]}{.spec.containers[0].image}{\"\\n\"}{end}")
		return strings.Count(out, "web:1.1") == 3 && !strings.Contains(out, "web:1.0")
	})
	pods := strings.Fields(kubectl(t, "get", "pods", "-n", "shop", "-l", "app=cart", "-o", "jsonpath={.items[*].metadata.name}"))
	if len(pods) != 2 {
		t.Fatalf("Deployment cart has pods %v, want 2", pods)
	}
	return fixture{cartPod: pods[0]}
}
