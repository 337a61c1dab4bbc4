// Package references tests the reference indexes of kubectl-informer (uses, used-by) and
// `tree --refs` against objects made by real controllers: a cluster with
// kube-controller-manager, kube-scheduler and nodes simulated by kwok, where Deployments,
// StatefulSets, DaemonSets and Jobs make their pods and the root CA publisher writes each
// namespace's kube-root-ca.crt. Every answer is compared with what the test computes itself
// from `kubectl get -o json` by the rules the README documents, with code of its own.
package references

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(2)) }

// rolloutTimeout bounds each step that waits for controllers on a loaded two-core machine.
const rolloutTimeout = 3 * time.Minute

// kubectl runs the real kubectl as the admin and fails the test if it fails.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	return kubectlIn(t, "", args...)
}

// kubectlIn is kubectl with stdin.
func kubectlIn(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Stdin: stdin, Timeout: rolloutTimeout + 30*time.Second})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// informer runs `kubectl informer ARGS` with env added to its environment and fails the test
// unless it exits 0.
func informer(t *testing.T, env []string, args ...string) framework.Result {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Env: env})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// lines returns the non-empty trimmed lines of s.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// obj is an object as `kubectl get -o json` gives it.
type obj = map[string]interface{}

// getList returns the items of `kubectl get TYPE -o json` in ns ("" for cluster-scoped).
func getList(t *testing.T, typ, ns string) []obj {
	t.Helper()
	args := []string{"get", typ, "-o", "json"}
	if ns != "" {
		args = append(args, "-n", ns)
	}
	var list struct {
		Items []obj `json:"items"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, args...)), &list); err != nil {
		t.Fatalf("decoding kubectl get %s: %v", typ, err)
	}
	return list.Items
}

// field returns the value at path in o, nil when absent.
func field(o interface{}, path ...string) interface{} {
	for _, p := range path {
		m, ok := o.(map[string]interface{})
		if !ok {
			return nil
		}
		o = m[p]
	}
	return o
}

// str returns the string at path in o, "" when absent.
func str(o interface{}, path ...string) string {
	s, _ := field(o, path...).(string)
	return s
}

// items returns the list at path in o.
func items(o interface{}, path ...string) []interface{} {
	l, _ := field(o, path...).([]interface{})
	return l
}

// fixture is the namespace built for the tests, and the cluster-scoped objects it uses.
type fixture struct {
	ns, suffix string
}

var (
	fixtureOnce sync.Once
	shared      fixture
	fixtureErr  string
)

// setUp builds, once for the package, namespace refs-N with one object per kind of reference
// (see fixtureYAML), waits for the controllers to make the pods, and adds an ephemeral
// container to pod app.
func setUp(t *testing.T) fixture {
	t.Helper()
	fixtureOnce.Do(func() {
		suffix := fmt.Sprintf("%d", time.Now().UnixNano()%1_000_000)
		f := fixture{ns: "refs-" + suffix, suffix: suffix}
		r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: fixtureYAML(f), Timeout: rolloutTimeout})
		if r.ExitCode != 0 {
			fixtureErr = "kubectl apply: " + r.String()
			return
		}
		for _, w := range []string{"deployment/web", "daemonset/agent"} {
			if r := framework.Run(t, framework.Cmd{Args: []string{"rollout", "status", w, "-n", f.ns, "--timeout=" + rolloutTimeout.String()}, Timeout: rolloutTimeout + 30*time.Second}); r.ExitCode != 0 {
				fixtureErr = "rollout " + w + ": " + r.String()
				return
			}
		}
		// The StatefulSet's pod waits for a claim no provisioner binds: it exists, pending.
		deadline := time.Now().Add(rolloutTimeout)
		for {
			pods := framework.Run(t, framework.Cmd{Args: []string{"get", "pods", "-n", f.ns, "-o", "name"}})
			if strings.Contains(pods.Stdout, "pod/db-0") && strings.Contains(pods.Stdout, "pod/once-") {
				break
			}
			if time.Now().After(deadline) {
				fixtureErr = "the StatefulSet's and Job's pods did not appear: " + pods.Stdout
				return
			}
			time.Sleep(time.Second)
		}
		patch := `{"spec":{"ephemeralContainers":[{"name":"debug","image":"busybox","envFrom":[{"secretRef":{"name":"sec-ephemeral"}}]}]}}`
		if r := framework.Run(t, framework.Cmd{Args: []string{"patch", "pod", "app", "-n", f.ns, "--subresource=ephemeralcontainers", "--type=strategic", "-p", patch}}); r.ExitCode != 0 {
			fixtureErr = "adding an ephemeral container: " + r.String()
			return
		}
		for {
			cms := framework.Run(t, framework.Cmd{Args: []string{"get", "configmap", "kube-root-ca.crt", "-n", f.ns, "-o", "name"}})
			if cms.ExitCode == 0 {
				break
			}
			if time.Now().After(deadline) {
				fixtureErr = "kube-root-ca.crt was not published"
				return
			}
			time.Sleep(time.Second)
		}
		shared = f
	})
	if fixtureErr != "" {
		t.Fatal(fixtureErr)
	}
	return shared
}

// fixtureYAML is every object of the fixture: for each kind of reference one object that
// makes it, objects nothing uses (cm-unused, sec-unused, sa-unused, pvc-unused), and the
// cluster-scoped StorageClass, PersistentVolume, PriorityClass, RuntimeClass and
// ClusterRoleBinding, named with the suffix.
func fixtureYAML(f fixture) string {
	return strings.NewReplacer("NS", f.ns, "SFX", f.suffix).Replace(`
apiVersion: v1
kind: Namespace
metadata: {name: NS}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: refs-sc-SFX}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: refs-pv-SFX}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: refs-sc-SFX
  hostPath: {path: /tmp/refs-SFX}
  claimRef: {namespace: NS, name: pvc-used}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: refs-high-SFX}
value: 1000
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: refs-rc-SFX}
handler: runc
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc-used, namespace: NS}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: refs-sc-SFX
  volumeName: refs-pv-SFX
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc-unused, namespace: NS}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: refs-sc-SFX
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa-app, namespace: NS}
imagePullSecrets: [{name: sec-sa-pull}]
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa-bound, namespace: NS}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa-unused, namespace: NS}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-init, namespace: NS}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-envfrom, namespace: NS}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-env, namespace: NS}
data: {k: v}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-vol, namespace: NS}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-proj, namespace: NS}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-shared, namespace: NS}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-cron, namespace: NS}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm-unused, namespace: NS}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-envfrom, namespace: NS}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-env, namespace: NS}
stringData: {k: v}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-vol, namespace: NS}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-proj, namespace: NS}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-pull, namespace: NS}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-sa-pull, namespace: NS}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-tls, namespace: NS}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-ephemeral, namespace: NS}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-job, namespace: NS}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-unused, namespace: NS}
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: NS}
spec:
  serviceAccountName: sa-app
  priorityClassName: refs-high-SFX
  runtimeClassName: refs-rc-SFX
  imagePullSecrets: [{name: sec-pull}]
  initContainers:
  - name: init
    image: busybox
    envFrom: [{configMapRef: {name: cm-init}}]
  containers:
  - name: app
    image: busybox
    envFrom: [{configMapRef: {name: cm-envfrom}}, {secretRef: {name: sec-envfrom}}]
    env:
    - {name: A, valueFrom: {configMapKeyRef: {name: cm-env, key: k}}}
    - {name: B, valueFrom: {secretKeyRef: {name: sec-env, key: k}}}
  volumes:
  - {name: cm, configMap: {name: cm-vol}}
  - {name: sec, secret: {secretName: sec-vol}}
  - name: proj
    projected:
      sources: [{configMap: {name: cm-proj}}, {secret: {name: sec-proj}}]
  - {name: shared, configMap: {name: cm-shared}}
  - {name: data, persistentVolumeClaim: {claimName: pvc-used}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
        envFrom: [{configMapRef: {name: cm-shared}}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: NS}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      serviceAccountName: sa-app
      containers:
      - name: db
        image: postgres
        volumeMounts: [{name: data, mountPath: /data}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: refs-sc-SFX
      resources: {requests: {storage: 1Gi}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: NS}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      tolerations: [{operator: Exists}]
      containers:
      - name: agent
        image: busybox
        env: [{name: A, valueFrom: {configMapKeyRef: {name: cm-env, key: k}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: NS}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: job
        image: busybox
        env: [{name: S, valueFrom: {secretKeyRef: {name: sec-job, key: k, optional: true}}}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: NS}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: job
            image: busybox
            envFrom: [{configMapRef: {name: cm-cron}}]
---
apiVersion: v1
kind: Service
metadata: {name: svc-web, namespace: NS}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: svc-default, namespace: NS}
spec:
  ports: [{port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: front, namespace: NS}
spec:
  defaultBackend: {service: {name: svc-default, port: {number: 80}}}
  tls: [{hosts: [shop.example.com], secretName: sec-tls}]
  rules:
  - host: shop.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: svc-web, port: {number: 80}}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: NS}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: readers, namespace: NS}
subjects:
- {kind: ServiceAccount, name: sa-bound, namespace: NS}
- {kind: ServiceAccount, name: default, namespace: default}
- {kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}
- {kind: Group, name: devs, apiGroup: rbac.authorization.k8s.io}
roleRef: {kind: Role, name: reader, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: refs-viewers-SFX}
subjects:
- {kind: ServiceAccount, name: sa-bound, namespace: NS}
roleRef: {kind: ClusterRole, name: view, apiGroup: rbac.authorization.k8s.io}
`)
}
