package columns

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
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

// Annotations that mark the cluster's default StorageClass, the GA one and the beta one.
const (
	defaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	betaDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

var storageClassTable = Table{
	Columns: columnsOf([]string{"Name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode", "AllowVolumeExpansion", "Age"}),
	Row:     typedRow(storageClassRow),
}

// storageClassRow is printers.go's printStorageClass with its list's rule for the default: NAME
// ends in " (default)" for a class annotated as the default. (printers.go's list printer marks only
// the most recently created of several such classes; a row of one object cannot see the others,
// so with several defaults each is marked.) Unset fields print the server's defaults: Delete,
// Immediate, false.
func storageClassRow(sc *storagev1.StorageClass, now time.Time) []string {
	name := sc.Name
	if sc.Annotations[defaultStorageClassAnnotation] == "true" || sc.Annotations[betaDefaultStorageClassAnnotation] == "true" {
		name += " (default)"
	}
	reclaim := string(corev1.PersistentVolumeReclaimDelete)
	if sc.ReclaimPolicy != nil {
		reclaim = string(*sc.ReclaimPolicy)
	}
	binding := string(storagev1.VolumeBindingImmediate)
	if sc.VolumeBindingMode != nil {
		binding = string(*sc.VolumeBindingMode)
	}
	expansion := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
	return []string{name, sc.Provisioner, reclaim, binding, boolText(expansion), age(sc.CreationTimestamp, now)}
}

var volumeAttributesClassTable = Table{
	Columns: columnsOf([]string{"Name", "DriverName", "Age"}),
	Row: typedRow(func(c *storagev1.VolumeAttributesClass, now time.Time) []string {
		return []string{c.Name, c.DriverName, age(c.CreationTimestamp, now)}
	}),
}

var csiDriverTable = Table{
	Columns: columnsOf([]string{"Name", "AttachRequired", "PodInfoOnMount", "StorageCapacity", "TokenRequests",
		"RequiresRepublish", "Modes", "Age"}),
	Row: typedRow(csiDriverRow),
}

// csiDriverRow is printers.go's printCSIDriver: unset booleans print their defaults (attachRequired
// true, the others false); TOKENREQUESTS lists the audiences, "<unset>" when nil; MODES "<none>"
// when empty.
func csiDriverRow(d *storagev1.CSIDriver, now time.Time) []string {
	boolOr := func(b *bool, def bool) string {
		if b == nil {
			return boolText(def)
		}
		return boolText(*b)
	}
	tokens := "<unset>"
	if d.Spec.TokenRequests != nil {
		audiences := make([]string, len(d.Spec.TokenRequests))
		for i, t := range d.Spec.TokenRequests {
			audiences[i] = t.Audience
		}
		tokens = strings.Join(audiences, ",")
	}
	modes := make([]string, len(d.Spec.VolumeLifecycleModes))
	for i, m := range d.Spec.VolumeLifecycleModes {
		modes[i] = string(m)
	}
	return []string{
		d.Name, boolOr(d.Spec.AttachRequired, true), boolOr(d.Spec.PodInfoOnMount, false),
		boolOr(d.Spec.StorageCapacity, false), tokens, boolOr(d.Spec.RequiresRepublish, false),
		orNone(strings.Join(modes, ",")), age(d.CreationTimestamp, now),
	}
}

var csiNodeTable = Table{
	Columns: columnsOf([]string{"Name", "Drivers", "Age"}),
	Row: typedRow(func(n *storagev1.CSINode, now time.Time) []string {
		return []string{n.Name, int64Cell(len(n.Spec.Drivers)), age(n.CreationTimestamp, now)}
	}),
}

// CSIStorageCapacities have a printer in printers.go, but the API server does not use it: it
// serves them with its default table, metadataTable.

// volumeAttachmentTable's ATTACHER column has the name format in printers.go too; kubectl
// --show-kind writes the kind before the first such column only, NAME, so ATTACHER is an ordinary
// column here.
var volumeAttachmentTable = Table{
	Columns: columnsOf([]string{"Name", "Attacher", "PV", "Node", "Attached", "Age"}),
	Row: typedRow(func(va *storagev1.VolumeAttachment, now time.Time) []string {
		pv := ""
		if va.Spec.Source.PersistentVolumeName != nil {
			pv = *va.Spec.Source.PersistentVolumeName
		}
		return []string{va.Name, va.Spec.Attacher, pv, va.Spec.NodeName, boolText(va.Status.Attached),
			age(va.CreationTimestamp, now)}
	}),
}
