package fleet

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// The objects of TestOneVersusMany, distinct in each context fleet-I
// (I = 1..3), created with kubectl (no controllers run):
//
//   - namespace onevsmany: ConfigMap cfg (data mode=mI), Secret sec,
//     Deployment web (app=web, no replicas), ReplicaSet web-6d4b owned by it,
//     I+1 pods web-6d4b-J owned by the ReplicaSet, bound to node ovm-I-a (J
//     odd) or ovm-I-b (J even), requesting 100m×J of CPU and 64Mi×J of
//     memory, reading cfg (envFrom) and sec (env); pod solo-I (app=solo, no
//     owner) on ovm-I-b requesting 50m; a Warning Event about web-6d4b-1
//     whose reason is SeenI;
//   - nodes ovm-I-a (zone-a, 2+I CPUs, 8Gi) and ovm-I-b (zone-b, 4 CPUs,
//     16Gi), nothing running them;
//   - namespace onevsmany-live, for the live tests: ConfigMap live
//     (data step=0) and I pods live-J (app=live, unbound, 10m of CPU each).
const (
	ovmNamespace     = "onevsmany"
	ovmLiveNamespace = "onevsmany-live"
)

var (
	ovmSeedOnce sync.Once
	ovmSeedErr  error
)

// seedOneVsMany creates the objects of TestOneVersusMany once per package
// run.
func seedOneVsMany(t *testing.T) {
	t.Helper()
	f := framework.CurrentFleet(t)
	ovmSeedOnce.Do(func() {
		for i, c := range f.Contexts {
			if ovmSeedErr = seedOneVsManyContext(t, f, c, i+1); ovmSeedErr != nil {
				return
			}
		}
	})
	if ovmSeedErr != nil {
		t.Fatal(ovmSeedErr)
	}
}

// seedOneVsManyContext creates the objects of context c, the n-th of the
// fleet.
func seedOneVsManyContext(t *testing.T, f *framework.Fleet, c string, n int) error {
	create := func(manifest string) error {
		r := framework.Run(t, framework.Cmd{Args: []string{"create", "-f", "-", "--context", c}, Kubeconfig: f.Kubeconfig, Stdin: manifest})
		if r.ExitCode != 0 {
			return fmt.Errorf("creating the objects of TestOneVersusMany in %s: %s", c, r)
		}
		return nil
	}
	uid := func(kind, name string) (string, error) {
		r := framework.Run(t, framework.Cmd{Args: []string{"get", kind, name, "-n", ovmNamespace, "--context", c, "-o", "jsonpath={.metadata.uid}"}, Kubeconfig: f.Kubeconfig})
		if r.ExitCode != 0 || r.Stdout == "" {
			return "", fmt.Errorf("reading the UID of %s %s in %s: %s", kind, name, c, r)
		}
		return r.Stdout, nil
	}

	base := ovmNamespaceYAML(ovmNamespace) + ovmNamespaceYAML(ovmLiveNamespace) + fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: %[1]s}
data: {mode: m%[2]d}
---
apiVersion: v1
kind: Secret
metadata: {name: sec, namespace: %[1]s}
stringData: {token: t%[2]d}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: %[1]s, labels: {app: web}}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx:1.27}]}
---
apiVersion: v1
kind: Node
metadata:
  name: ovm-%[2]d-a
  labels: {topology.kubernetes.io/zone: zone-a}
status:
  allocatable: {cpu: "%[3]d", memory: 8Gi, pods: "110"}
  capacity: {cpu: "%[3]d", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: ovm-%[2]d-b
  labels: {topology.kubernetes.io/zone: zone-b}
status:
  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: live, namespace: %[4]s}
data: {step: "0"}
---
`, ovmNamespace, n, 2+n, ovmLiveNamespace)
	for j := 1; j <= n; j++ {
		base += ovmLivePodYAML(fmt.Sprintf("live-%d", j))
	}
	if err := create(base); err != nil {
		return err
	}
	deployUID, err := uid("deployment", "web")
	if err != nil {
		return err
	}
	if err := create(fmt.Sprintf(`apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-6d4b
  namespace: %s
  labels: {app: web}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: %s, controller: true}]
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx:1.27}]}
`, ovmNamespace, deployUID)); err != nil {
		return err
	}
	rsUID, err := uid("replicaset", "web-6d4b")
	if err != nil {
		return err
	}
	var pods string
	for j := 1; j <= n+1; j++ {
		node := fmt.Sprintf("ovm-%d-a", n)
		if j%2 == 0 {
			node = fmt.Sprintf("ovm-%d-b", n)
		}
		pods += fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: web-6d4b-%d
  namespace: %s
  labels: {app: web}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-6d4b, uid: %s, controller: true}]
spec:
  nodeName: %s
  containers:
  - name: c
    image: nginx:1.27
    envFrom: [{configMapRef: {name: cfg}}]
    env: [{name: TOKEN, valueFrom: {secretKeyRef: {name: sec, key: token}}}]
    resources:
      requests: {cpu: %dm, memory: %dMi}
---
`, j, ovmNamespace, rsUID, node, 100*j, 64*j)
	}
	pods += fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: solo-%d
  namespace: %s
  labels: {app: solo}
spec:
  nodeName: ovm-%d-b
  containers:
  - name: c
    image: busybox:1.36
    resources:
      requests: {cpu: 50m}
`, n, ovmNamespace, n)
	if err := create(pods); err != nil {
		return err
	}
	podUID, err := uid("pod", "web-6d4b-1")
	if err != nil {
		return err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	return create(fmt.Sprintf(`apiVersion: v1
kind: Event
metadata: {name: web-6d4b-1.ovm, namespace: %[1]s}
involvedObject: {apiVersion: v1, kind: Pod, name: web-6d4b-1, namespace: %[1]s, uid: %[2]s}
type: Warning
reason: Seen%[3]d
message: in context %[4]s
source: {component: e2e}
firstTimestamp: %[5]q
lastTimestamp: %[5]q
count: 1
`, ovmNamespace, podUID, n, c, now))
}

// ovmNamespaceYAML is namespace ns with the default service account that
// admission requires and no controller makes here.
func ovmNamespaceYAML(ns string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %[1]s}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: %[1]s}\n---\n", ns)
}

// ovmLivePodYAML is pod name of namespace onevsmany-live: app=live,
// unbound (so capacity does not count it), requesting 10m of CPU.
func ovmLivePodYAML(name string) string {
	return strings.TrimSpace(fmt.Sprintf(`
apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: %s
  labels: {app: live}
spec:
  containers:
  - name: c
    image: nginx:1.27
    resources:
      requests: {cpu: 10m}
`, name, ovmLiveNamespace)) + "\n---\n"
}
