package columns

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// nodeUnreachablePodReason is the pod status reason the node lifecycle controller sets on the pods
// of a node that stopped reporting (k8s.io/kubernetes/pkg/util/node.NodeUnreachablePodReason).
const nodeUnreachablePodReason = "NodeLost"

var podTable = Table{
	Columns: columnsOf([]string{"Name", "Ready", "Status", "Restarts", "Age",
		"IP", "Node", "Nominated Node", "Readiness Gates"},
		"IP", "Node", "Nominated Node", "Readiness Gates"),
	Row: typedRow(podRow),
}

// podRow is printers.go's printPod.
func podRow(pod *corev1.Pod, now time.Time) []string {
	restarts := 0
	restartableInitContainerRestarts := 0
	totalContainers := len(pod.Spec.Containers)
	readyContainers := 0
	var lastRestartDate, lastRestartableInitContainerRestartDate metav1.Time

	reason := string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		reason = pod.Status.Reason
	}
	// A pod carrying {type: PodScheduled, reason: SchedulingGated} is SchedulingGated.
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			reason = corev1.PodReasonSchedulingGated
		}
	}

	initContainers := make(map[string]*corev1.Container, len(pod.Spec.InitContainers))
	for i := range pod.Spec.InitContainers {
		initContainers[pod.Spec.InitContainers[i].Name] = &pod.Spec.InitContainers[i]
		if isRestartableInitContainer(&pod.Spec.InitContainers[i]) {
			totalContainers++
		}
	}

	initializing := false
	for i := range pod.Status.InitContainerStatuses {
		container := &pod.Status.InitContainerStatuses[i]
		restarts += int(container.RestartCount)
		if t := container.LastTerminationState.Terminated; t != nil && lastRestartDate.Before(&t.FinishedAt) {
			lastRestartDate = t.FinishedAt
		}
		restartable := isRestartableInitContainer(initContainers[container.Name])
		if restartable {
			restartableInitContainerRestarts += int(container.RestartCount)
			if t := container.LastTerminationState.Terminated; t != nil && lastRestartableInitContainerRestartDate.Before(&t.FinishedAt) {
				lastRestartableInitContainerRestartDate = t.FinishedAt
			}
		}
		switch {
		case container.State.Terminated != nil && container.State.Terminated.ExitCode == 0:
			continue
		case restartable && container.Started != nil && *container.Started:
			if container.Ready {
				readyContainers++
			}
			continue
		case container.State.Terminated != nil:
			// Initialization failed.
			t := container.State.Terminated
			switch {
			case t.Reason != "":
				reason = "Init:" + t.Reason
			case t.Signal != 0:
				reason = fmt.Sprintf("Init:Signal:%d", t.Signal)
			default:
				reason = fmt.Sprintf("Init:ExitCode:%d", t.ExitCode)
			}
			initializing = true
		case container.State.Waiting != nil && container.State.Waiting.Reason != "" && container.State.Waiting.Reason != "PodInitializing":
			reason = "Init:" + container.State.Waiting.Reason
			initializing = true
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
			initializing = true
		}
		break
	}

	if !initializing || podConditionTrue(pod.Status.Conditions, corev1.PodInitialized) {
		restarts = restartableInitContainerRestarts
		lastRestartDate = lastRestartableInitContainerRestartDate
		hasRunning := false
		errorReason := ""
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			container := &pod.Status.ContainerStatuses[i]
			restarts += int(container.RestartCount)
			if t := container.LastTerminationState.Terminated; t != nil && lastRestartDate.Before(&t.FinishedAt) {
				lastRestartDate = t.FinishedAt
			}
			switch {
			case container.State.Waiting != nil && container.State.Waiting.Reason != "":
				reason = container.State.Waiting.Reason
			case container.State.Terminated != nil:
				t := container.State.Terminated
				switch {
				case t.Reason != "":
					reason = t.Reason
				case t.Signal != 0:
					reason = fmt.Sprintf("Signal:%d", t.Signal)
				default:
					reason = fmt.Sprintf("ExitCode:%d", t.ExitCode)
				}
				if t.ExitCode != 0 {
					errorReason = reason
				}
			case container.Ready && container.State.Running != nil:
				hasRunning = true
				readyContainers++
			}
		}
		// Back to Running if a container still runs.
		if reason == "Completed" {
			switch {
			case hasRunning && hasPodReadyCondition(pod.Status.Conditions):
				reason = "Running"
			case errorReason != "":
				reason = errorReason
			case hasRunning:
				reason = "NotReady"
			}
		}
	}

	if pod.DeletionTimestamp != nil && pod.Status.Reason == nodeUnreachablePodReason {
		reason = "Unknown"
	} else if pod.DeletionTimestamp != nil && pod.Status.Phase != corev1.PodFailed && pod.Status.Phase != corev1.PodSucceeded {
		reason = "Terminating"
	}

	restartsCell := strconv.Itoa(restarts)
	if restarts != 0 && !lastRestartDate.IsZero() {
		restartsCell = fmt.Sprintf("%d (%s ago)", restarts, age(lastRestartDate, now))
	}

	podIP := "<none>"
	if len(pod.Status.PodIPs) > 0 && pod.Status.PodIPs[0].IP != "" {
		podIP = pod.Status.PodIPs[0].IP
	}
	readinessGates := "<none>"
	if len(pod.Spec.ReadinessGates) > 0 {
		trueConditions := 0
		for _, gate := range pod.Spec.ReadinessGates {
			for _, c := range pod.Status.Conditions {
				if c.Type == gate.ConditionType {
					if c.Status == corev1.ConditionTrue {
						trueConditions++
					}
					break
				}
			}
		}
		readinessGates = fmt.Sprintf("%d/%d", trueConditions, len(pod.Spec.ReadinessGates))
	}

	return []string{
		pod.Name,
		fmt.Sprintf("%d/%d", readyContainers, totalContainers),
		reason,
		restartsCell,
		age(pod.CreationTimestamp, now),
		podIP,
		orNone(pod.Spec.NodeName),
		orNone(pod.Status.NominatedNodeName),
		readinessGates,
	}
}

// isRestartableInitContainer reports whether an init container is a sidecar: restartPolicy Always.
// A nil container (a status without a spec) is not.
func isRestartableInitContainer(c *corev1.Container) bool {
	return c != nil && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// podConditionTrue reports whether the first condition of type t is True, as printers.go's
// isPodInitializedConditionTrue does.
func podConditionTrue(conditions []corev1.PodCondition, t corev1.PodConditionType) bool {
	for _, c := range conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// hasPodReadyCondition reports whether any Ready condition is True.
func hasPodReadyCondition(conditions []corev1.PodCondition) bool {
	for _, c := range conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// orNone returns s, or "<none>" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// podTemplateTable has no AGE column: printers.go prints none for PodTemplates.
var podTemplateTable = Table{
	Columns: columnsOf([]string{"Name", "Containers", "Images", "Pod Labels"}),
	Row: typedRow(func(pt *corev1.PodTemplate, _ time.Time) []string {
		names, images := containerCells(pt.Template.Spec.Containers)
		return []string{pt.Name, names, images, labels.FormatLabels(pt.Template.Labels)}
	}),
}
