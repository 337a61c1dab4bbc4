package workloads

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// everyTypeManifest holds an object of each type a cluster with controllers
// has none of by default, in the namespace everytype or cluster-wide, with
// cells of several kinds: percentages and "N/A" (PodDisruptionBudgets),
// "<unknown>/80%" (an HPA without metrics), subjects (a RoleBinding), a
// default IngressClass and StorageClass, webhooks and admission policies
// that match no resource anyone uses, DRA objects, CSI objects on the node
// NODE, a CRD with a printer column and one of its objects. Together with
// what the cluster makes itself (leases, flow schemas, API services,
// endpoints and slices of the Service, controller revisions of the
// DaemonSet, events, ...) every type discovery lists has rows, but
// PodCertificateRequests (see everyTypeEmpty).
const everyTypeManifest = `
apiVersion: v1
kind: Namespace
metadata: {name: everytype}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: everytype}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: main, image: registry.example.com/web:v1, resources: {requests: {cpu: 10m, memory: 16Mi}, limits: {cpu: 100m, memory: 64Mi}}}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: everytype}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}, {name: metrics, port: 9090}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: everytype}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: main, image: registry.example.com/agent:v1, resources: {requests: {cpu: 10m, memory: 16Mi}, limits: {cpu: 100m, memory: 64Mi}}}]
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy, namespace: everytype}
spec:
  replicas: 2
  selector: {app: legacy}
  template:
    metadata: {labels: {app: legacy}}
    spec:
      containers: [{name: main, image: registry.example.com/legacy:v1, resources: {requests: {cpu: 10m, memory: 16Mi}, limits: {cpu: 100m, memory: 64Mi}}}]
---
apiVersion: v1
kind: PodTemplate
metadata: {name: template, namespace: everytype}
template:
  metadata: {labels: {app: template, tier: batch}}
  spec:
    containers: [{name: a, image: registry.example.com/a:v1}, {name: b, image: registry.example.com/b:v1}]
---
apiVersion: v1
kind: LimitRange
metadata: {name: limits, namespace: everytype}
spec:
  limits: [{type: Container, default: {cpu: 100m, memory: 64Mi}, defaultRequest: {cpu: 10m, memory: 16Mi}}]
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: quota, namespace: everytype}
spec:
  hard: {pods: "50", requests.cpu: "4", requests.memory: 4Gi, limits.cpu: "8", limits.memory: 8Gi, configmaps: "20"}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: everytype}
spec:
  minAvailable: 50%
  selector: {matchLabels: {app: web}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: agent, namespace: everytype}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: agent}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: everytype}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 4
  maxReplicas: 6
  metrics:
  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}
  - {type: Resource, resource: {name: memory, target: {type: AverageValue, averageValue: 100Mi}}}
  - {type: Pods, pods: {metric: {name: qps}, target: {type: AverageValue, averageValue: "10"}}}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: columns
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec:
  controller: example.com/ingress
  parameters: {apiGroup: example.com, kind: IngressParameters, name: columns}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web, namespace: everytype}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress]
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: columns}
handler: runc
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: columns}
value: 1000
preemptionPolicy: Never
description: columns test
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: everytype}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: readers, namespace: everytype}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}
- {kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}
- {kind: Group, name: devs, apiGroup: rbac.authorization.k8s.io}
- {kind: ServiceAccount, name: default, namespace: everytype}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: columns}
webhooks:
- name: columns.example.com
  clientConfig: {url: "https://127.0.0.1:1/validate"}
  rules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [nothings]}]
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: columns}
webhooks:
- name: a.columns.example.com
  clientConfig: {url: "https://127.0.0.1:1/mutate"}
  rules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [nothings]}]
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1]
- name: b.columns.example.com
  clientConfig: {url: "https://127.0.0.1:1/mutate"}
  rules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [nothings]}]
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: columns}
spec:
  failurePolicy: Ignore
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [nothings]}]
  validations: [{expression: "true"}, {expression: "1 == 1"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: columns}
spec:
  policyName: columns
  validationActions: [Audit]
  paramRef: {name: settings, namespace: everytype, parameterNotFoundAction: Allow}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: columns}
spec:
  failurePolicy: Ignore
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [nothings]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{}"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: columns}
spec:
  policyName: columns
  paramRef: {selector: {matchLabels: {app: columns}}, parameterNotFoundAction: Allow}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: columns
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: columns.csi.example.com
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: columns}
driverName: columns.csi.example.com
parameters: {iops: "1000"}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: columns.csi.example.com}
spec:
  attachRequired: false
  podInfoOnMount: true
  volumeLifecycleModes: [Persistent, Ephemeral]
  tokenRequests: [{audience: columns}, {audience: vault}]
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: NODE}
spec:
  drivers: [{name: columns.csi.example.com, nodeID: NODE}]
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: columns, namespace: everytype}
storageClassName: columns
capacity: 10Gi
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: everytype-pv}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  csi: {driver: columns.csi.example.com, volumeHandle: columns-1}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: columns}
spec:
  attacher: columns.csi.example.com
  nodeName: NODE
  source: {persistentVolumeName: everytype-pv}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: columns}
spec:
  selectors: [{cel: {expression: 'device.driver == "columns.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: columns}
spec:
  driver: columns.example.com
  nodeName: NODE
  pool: {name: NODE, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: columns}
spec:
  deviceSelector: {driver: columns.example.com}
  taint: {key: example.com/broken, value: "yes", effect: NoSchedule}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu, namespace: everytype}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: columns}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu, namespace: everytype}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: columns}}]
---
apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata: {name: limitranges}
spec:
  resource: {group: "", resource: limitranges}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.columns.example.com}
spec:
  group: columns.example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    additionalPrinterColumns:
    - {name: Color, type: string, jsonPath: .spec.color}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: everytype}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: main, image: registry.example.com/db:v1}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: everytype}
spec:
  tls: [{hosts: [a.example.com]}]
  rules:
  - {host: a.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}
  - {host: b.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: everytype}
spec:
  storageClassName: columns
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: everytype}
stringData: {user: admin}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: everytype}
data: {a: "1", b: "2"}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: everytype}
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: main, image: registry.example.com/cron:v1}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: done, namespace: everytype}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: registry.example.com/job:v1}]
`

// everyTypeWidget is an object of the CRD of everyTypeManifest.
const everyTypeWidget = `
apiVersion: columns.example.com/v1
kind: Widget
metadata: {name: knob, namespace: everytype}
spec: {color: red}
`

// everyTypeCSR is a certificate signing request for a signer nobody runs:
// it stays Pending. REQUEST is its PEM request in base64.
const everyTypeCSR = `
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: columns}
spec:
  signerName: example.com/columns
  expirationSeconds: 3600
  usages: [client auth]
  request: REQUEST
`

// everyTypeEmpty lists the types the test makes no object of, and why: a
// PodCertificateRequest must prove a key bound to a running pod's identity,
// which a kwok node does not give.
var everyTypeEmpty = map[string]string{
	"podcertificaterequests.certificates.k8s.io": "needs a kubelet's proof of a pod's key",
}

// everyTypeAnyOrder lists the types whose rows kubectl prints in an order
// of the server's rather than by namespace and name, and which the plugin,
// printing its own cache, sorts by name: the rows are compared but not
// their order.
var everyTypeAnyOrder = map[string]string{
	// The API server probes the components in parallel and lists them in
	// the order the probes finish (registry/core/componentstatus, List).
	"componentstatuses": "the order the API server's probes finish in",
}

// TestColumnsEveryType compares `kubectl informer query TYPE -A` with
// `kubectl get TYPE -A`, with and without -o wide, for every type discovery
// lists (kubectl api-resources --verbs=list), after making an object of each
// type the cluster has none of. Ages may differ by the moment between the
// two commands; every other cell must be the same.
func TestColumnsEveryType(t *testing.T) {
	c := framework.Current(t)
	const ns = "everytype"
	framework.CreateNamespace(t, c.AdminClient(), ns)

	nodes, err := c.AdminClient().CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) == 0 {
		t.Fatalf("listing nodes: %v (%d nodes)", err, len(nodes.Items))
	}
	apply(t, strings.ReplaceAll(everyTypeManifest, "NODE", nodes.Items[0].Name))
	apply(t, strings.ReplaceAll(everyTypeCSR, "REQUEST", certificateRequest(t)))
	kubectl(t, "wait", "crd/widgets.columns.example.com", "--for=condition=Established", "--timeout=1m")
	apply(t, everyTypeWidget)
	t.Cleanup(func() { deleteEveryType(t, nodes.Items[0].Name) })

	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "rollout", "status", "daemonset/agent", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "rollout", "status", "statefulset/db", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "wait", "job/done", "-n", ns, "--for=condition=Complete", "--timeout="+rolloutTimeout.String())
	// The endpoints, the quota's usage and the HPA's status are written by
	// controllers after the pods run.
	waitForOutput(t, []string{"get", "endpoints", "web", "-n", ns, "-o", "jsonpath={.subsets[0].addresses[3].ip}"})
	waitForOutput(t, []string{"get", "resourcequota", "quota", "-n", ns, "-o", "jsonpath={.status.used.pods}"})
	waitForOutput(t, []string{"get", "hpa", "web", "-n", ns, "-o", "jsonpath={.status.conditions[0].type}"})

	types := strings.Fields(kubectl(t, "api-resources", "--verbs=list", "-o", "name"))
	if len(types) < 60 {
		t.Fatalf("discovery lists %d types, want the 60 and more of kube-apiserver v1.37: %q", len(types), types)
	}
	for _, typ := range types {
		t.Run(typ, func(t *testing.T) {
			r := framework.Run(t, framework.Cmd{Args: []string{"get", typ, "-A", "--no-headers"}})
			if r.ExitCode != 0 {
				t.Fatalf("kubectl get %s: %s", typ, r)
			}
			if _, empty := everyTypeEmpty[typ]; !empty && strings.TrimSpace(r.Stdout) == "" {
				t.Errorf("kubectl get %s -A lists no object, so the comparison would not cover its columns", typ)
			}
			_, anyOrder := everyTypeAnyOrder[typ]
			compareOutputsOrdered(t, !anyOrder, typ, "-A")
			compareOutputsOrdered(t, !anyOrder, typ, "-A", "-o", "wide")
		})
	}
	// --show-kind writes the kind before the first column of name format
	// only: a VolumeAttachment's ATTACHER has that format too, and a
	// StorageVersionMigration's NAME has not.
	compareOutputs(t, "volumeattachments", "--show-kind")
	compareOutputs(t, "storageversionmigrations", "--show-kind")
}

// waitForOutput runs kubectl args until it succeeds with some output.
func waitForOutput(t *testing.T, args []string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), time.Second, rolloutTimeout, true, func(ctx context.Context) (bool, error) {
		r := framework.Kubectl(t, ctx, args...)
		return r.ExitCode == 0 && strings.TrimSpace(r.Stdout) != "", nil
	})
	if err != nil {
		t.Fatalf("waiting for kubectl %s to print something: %v", strings.Join(args, " "), err)
	}
}

// certificateRequest returns a new PEM certificate request, base64-encoded
// as a CertificateSigningRequest's spec.request.
func certificateRequest(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("generating a key: %v", err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "columns"}}, key)
	if err != nil {
		t.Fatalf("creating a certificate request: %v", err)
	}
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}

// deleteEveryType deletes the cluster-scoped objects of the test, which
// would otherwise change the cluster for the package's other tests (a
// default StorageClass and IngressClass, webhooks, a priority class). The
// namespace goes with the framework's cleanup.
func deleteEveryType(t *testing.T, node string) {
	for _, obj := range []string{
		"ingressclass/columns", "runtimeclass/columns", "priorityclass/columns",
		"validatingwebhookconfiguration/columns", "mutatingwebhookconfiguration/columns",
		"validatingadmissionpolicybinding/columns", "validatingadmissionpolicy/columns",
		"mutatingadmissionpolicybinding/columns", "mutatingadmissionpolicy/columns",
		"storageclass/columns", "volumeattributesclass/columns", "csidriver/columns.csi.example.com",
		"volumeattachment/columns", "persistentvolume/everytype-pv",
		"deviceclass/columns", "devicetaintrule/columns", "resourceslice/columns", "csinode/" + node,
		"storageversionmigration/limitranges", "csr/columns", "crd/widgets.columns.example.com",
	} {
		if r := framework.Run(t, framework.Cmd{Args: []string{"delete", obj, "--ignore-not-found", "--wait=false"}}); r.ExitCode != 0 {
			t.Logf("kubectl delete %s: %s", obj, r)
		}
	}
}
