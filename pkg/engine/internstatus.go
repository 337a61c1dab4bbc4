package engine

import (
	"unsafe"

	corev1 "k8s.io/api/core/v1"
)

// statusValues shares the parts of pods' statuses that repeat between pods
// started together (condition lists, container statuses, start times): a
// table of its own, so that the many statuses seen only once do not empty
// the table of template values (values) they would otherwise fill.
var statusValues = &valueInterner{}

// internStatusValues shares st's condition lists, container statuses and
// start time with other pods' equal ones (their strings shared first), and
// lets the first pod IP's entry in podIPs use the podIP string itself.
func internStatusValues(st *corev1.PodStatus) {
	for i := range st.Conditions {
		share(&st.Conditions[i].Message)
	}
	shareSliceIn(statusValues, &st.Conditions)
	for _, statuses := range []*[]corev1.ContainerStatus{&st.InitContainerStatuses, &st.ContainerStatuses, &st.EphemeralContainerStatuses} {
		for i := range *statuses {
			s := &(*statuses)[i]
			if t := s.LastTerminationState.Terminated; t != nil {
				share(&t.Reason)
			}
		}
		shareSliceIn(statusValues, statuses)
	}
	sharePtrIn(statusValues, &st.StartTime)
	if len(st.PodIPs) > 0 {
		sameString(&st.PodIPs[0].IP, st.PodIP)
	}
}

// internVolumeMountNames lets each volume mount's name use the string of
// the pod's volume of that name (a pod's own token volume is named once per
// pod, in the volume and in every container's mount).
func internVolumeMountNames(spec *corev1.PodSpec) {
	if len(spec.Volumes) == 0 {
		return
	}
	for _, containers := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range containers {
			for j := range containers[i].VolumeMounts {
				m := &containers[i].VolumeMounts[j]
				for k := range spec.Volumes {
					if spec.Volumes[k].Name == m.Name {
						sameString(&m.Name, spec.Volumes[k].Name)
						break
					}
				}
			}
		}
	}
}

// sameString makes *s use the bytes of v when the two are equal, writing
// nothing when they are the same string already.
func sameString(s *string, v string) {
	if *s == v && unsafe.StringData(*s) != unsafe.StringData(v) {
		*s = v
	}
}
