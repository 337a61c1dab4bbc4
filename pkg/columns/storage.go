package columns

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// betaStorageClassAnnotation names a volume's or claim's class before spec.storageClassName;
// printers.go prefers it when set.
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

var persistentVolumeTable = Table{
	Columns: columnsOf([]string{"Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim",
		"StorageClass", "VolumeAttributesClass", "Reason", "Age", "VolumeMode"},
		"VolumeMode"),
	Row: typedRow(persistentVolumeRow),
}

// persistentVolumeRow is printers.go's printPersistentVolume.
func persistentVolumeRow(pv *corev1.PersistentVolume, now time.Time) []string {
	claim := ""
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	capacity := pv.Spec.Capacity[corev1.ResourceStorage]
	phase := string(pv.Status.Phase)
	if pv.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	class, ok := pv.Annotations[betaStorageClassAnnotation]
	if !ok {
		class = pv.Spec.StorageClassName
	}
	return []string{
		pv.Name, capacity.String(), accessModes(pv.Spec.AccessModes), string(pv.Spec.PersistentVolumeReclaimPolicy),
		phase, claim, class, orUnset(pv.Spec.VolumeAttributesClassName), pv.Status.Reason,
		age(pv.CreationTimestamp, now), volumeMode(pv.Spec.VolumeMode),
	}
}

var persistentVolumeClaimTable = Table{
	Columns: columnsOf([]string{"Name", "Status", "Volume", "Capacity", "Access Modes",
		"StorageClass", "VolumeAttributesClass", "Age", "VolumeMode"},
		"VolumeMode"),
	Row: typedRow(persistentVolumeClaimRow),
}

// persistentVolumeClaimRow is printers.go's printPersistentVolumeClaim: CAPACITY and ACCESS MODES
// are the status's, and only once the claim names a volume.
func persistentVolumeClaimRow(pvc *corev1.PersistentVolumeClaim, now time.Time) []string {
	phase := string(pvc.Status.Phase)
	if pvc.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	capacity, modes := "", ""
	if pvc.Spec.VolumeName != "" {
		modes = accessModes(pvc.Status.AccessModes)
		q := pvc.Status.Capacity[corev1.ResourceStorage]
		capacity = q.String()
	}
	class, ok := pvc.Annotations[betaStorageClassAnnotation]
	if !ok && pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	return []string{
		pvc.Name, phase, pvc.Spec.VolumeName, capacity, modes, class,
		orUnset(pvc.Spec.VolumeAttributesClassName), age(pvc.CreationTimestamp, now), volumeMode(pvc.Spec.VolumeMode),
	}
}

// accessModes is GetAccessModesAsString of k8s.io/kubernetes/pkg/apis/core/helper: the short
// names of the modes present, in the order RWO, ROX, RWX, RWOP.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var short []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{
		{corev1.ReadWriteOnce, "RWO"},
		{corev1.ReadOnlyMany, "ROX"},
		{corev1.ReadWriteMany, "RWX"},
		{corev1.ReadWriteOncePod, "RWOP"},
	} {
		if slices.Contains(modes, m.mode) {
			short = append(short, m.short)
		}
	}
	return strings.Join(short, ",")
}

// volumeMode returns the mode, or "<unset>".
func volumeMode(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}

// orUnset returns *s, or "<unset>" when s is nil.
func orUnset(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
}
