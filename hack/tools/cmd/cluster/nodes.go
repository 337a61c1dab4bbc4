package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// maxNodes bounds up --nodes: node i gets the pod CIDR 10.(244+i/256).(i%256).0/24.
const maxNodes = 2000

// nodeZones are the zones nodes are spread over, round robin.
var nodeZones = []string{"zone-a", "zone-b", "zone-c"}

// nodeShape is an instance type: what a node of it has, and what it leaves
// for pods once the system has its share.
type nodeShape struct {
	instanceType string
	cpu          string // capacity
	cpuAlloc     string
	memory       string
	memoryAlloc  string
	pods         string
}

// nodeShapes are the instance types nodes cycle through, so that capacity and
// allocatable differ between nodes and within every zone.
var nodeShapes = []nodeShape{
	{instanceType: "m5.large", cpu: "2", cpuAlloc: "1930m", memory: "8Gi", memoryAlloc: "7484Mi", pods: "110"},
	{instanceType: "m5.xlarge", cpu: "4", cpuAlloc: "3920m", memory: "16Gi", memoryAlloc: "15148Mi", pods: "250"},
	{instanceType: "c5.2xlarge", cpu: "8", cpuAlloc: "7910m", memory: "16Gi", memoryAlloc: "15148Mi", pods: "250"},
}

// nodeName is the name of simulated node i (from 1).
func nodeName(i int) string { return fmt.Sprintf("kwok-node-%d", i) }

// gpuResource is the extended resource up --gpus gives nodes.
const gpuResource corev1.ResourceName = "nvidia.com/gpu"

// gpuPresentLabel is the label NVIDIA's GPU operator puts on nodes that have
// GPUs.
const gpuPresentLabel = "nvidia.com/gpu.present"

// kwokMetricsPathAnnotation tells metrics-server (v0.7.0 and later) where a
// node's kubelet serves its resource metrics; kwok serves every node's at
// this path on its own port.
const kwokMetricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"

// kubeletHost is the address up --metrics gives each node's kubelet, as an
// InternalDNS address: kwok, on 127.0.0.1, answers for all of them.
// metrics-server is told to prefer that address type; the InternalIP stays
// what it is without --metrics.
const kubeletHost = "localhost"

// nodeOptions are what up's flags add to the simulated nodes.
type nodeOptions struct {
	// gpus > 0 gives odd-numbered nodes that many nvidia.com/gpu.
	gpus int
	// metrics gives each node the resource-metrics path kwok serves its
	// metrics at and the address of its kubelet (kubeletHost).
	metrics bool
}

// simulatedNode is node i (from 1) as a kubelet would register it: labels for
// hostname, zone, region, instance type and role; capacity and allocatable
// of its shape; an internal IP and a pod CIDR of its own. The annotation
// hands it to kwok. o adds GPUs to odd-numbered nodes and what
// metrics-server needs to scrape it.
func simulatedNode(i int, o nodeOptions) *corev1.Node {
	node := shapedNode(i)
	if o.gpus > 0 && i%2 == 1 {
		gpus := *resource.NewQuantity(int64(o.gpus), resource.DecimalSI)
		node.Status.Capacity[gpuResource] = gpus
		node.Status.Allocatable[gpuResource] = gpus
		node.Labels[gpuPresentLabel] = "true"
	}
	if o.metrics {
		node.Annotations[kwokMetricsPathAnnotation] = "/metrics/nodes/" + node.Name + "/metrics/resource"
		node.Status.Addresses = append(node.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalDNS, Address: kubeletHost})
	}
	return node
}

// shapedNode is node i of simulatedNode before o.
func shapedNode(i int) *corev1.Node {
	name := nodeName(i)
	zone := nodeZones[(i-1)%len(nodeZones)]
	shape := nodeShapes[((i-1)/len(nodeZones))%len(nodeShapes)]
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"kubernetes.io/hostname":           name,
				"kubernetes.io/os":                 "linux",
				"kubernetes.io/arch":               "amd64",
				"topology.kubernetes.io/region":    "region-1",
				"topology.kubernetes.io/zone":      zone,
				"node.kubernetes.io/instance-type": shape.instanceType,
				"node-role.kubernetes.io/worker":   "",
				"type":                             "kwok",
			},
			Annotations: map[string]string{
				kwokNodeAnnotation:             "fake",
				"node.alpha.kubernetes.io/ttl": "0",
			},
		},
		Spec: corev1.NodeSpec{
			PodCIDR:  fmt.Sprintf("10.%d.%d.0/24", 244+i/256, i%256),
			PodCIDRs: []string{fmt.Sprintf("10.%d.%d.0/24", 244+i/256, i%256)},
		},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:              resource.MustParse(shape.cpu),
				corev1.ResourceMemory:           resource.MustParse(shape.memory),
				corev1.ResourcePods:             resource.MustParse(shape.pods),
				corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
			},
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU:              resource.MustParse(shape.cpuAlloc),
				corev1.ResourceMemory:           resource.MustParse(shape.memoryAlloc),
				corev1.ResourcePods:             resource.MustParse(shape.pods),
				corev1.ResourceEphemeralStorage: resource.MustParse("90Gi"),
			},
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("172.18.%d.%d", i/256, i%256)},
				{Type: corev1.NodeHostName, Address: name},
			},
			NodeInfo: corev1.NodeSystemInfo{
				Architecture:            "amd64",
				OperatingSystem:         "linux",
				OSImage:                 "kwok simulated node",
				KernelVersion:           "kwok-" + kwokVersion,
				ContainerRuntimeVersion: "kwok://" + kwokVersion,
				KubeletVersion:          kubernetesVersion,
			},
		},
	}
}

// registerNodes creates nodes 1..n as o says (keeping any that exist) and
// waits until kwok has marked every one Ready.
func registerNodes(kubeconfig string, n int, o nodeOptions, timeout time.Duration) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.UserAgent = "hack/cluster"
	cfg.QPS, cfg.Burst = 200, 400
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating a client: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for i := 1; i <= n; i++ {
		_, err := cs.CoreV1().Nodes().Create(ctx, simulatedNode(i, o), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", nodeName(i), err)
		}
	}
	ready := 0
	err = wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		ready = 0
		for _, node := range nodes.Items {
			if node.Annotations[kwokNodeAnnotation] == "" {
				continue
			}
			for _, c := range node.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return ready >= n, nil
	})
	if err != nil {
		return fmt.Errorf("%d of %d nodes Ready after %s; is kwok running?", ready, n, timeout)
	}
	return nil
}
