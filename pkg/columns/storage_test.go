package columns

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestPersistentVolumeRow(t *testing.T) {
	block := corev1.PersistentVolumeBlock
	runRows(t, schema.GroupResource{Resource: "persistentvolumes"}, []rowCase{
		{
			// CAPACITY is spec.capacity[storage]; ACCESS MODES short names in RWO, ROX, RWX, RWOP
			// order without duplicates; CLAIM namespace/name; VolumeAttributesClass and wide
			// VOLUMEMODE when set.
			name: "bound",
			obj: &corev1.PersistentVolume{ObjectMeta: objMeta("pv-1"),
				Spec: corev1.PersistentVolumeSpec{
					Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
					AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod, corev1.ReadWriteOnce, corev1.ReadOnlyMany, corev1.ReadWriteOnce},
					PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
					ClaimRef:                      &corev1.ObjectReference{Namespace: "db", Name: "data-0"},
					StorageClassName:              "fast",
					VolumeAttributesClassName:     ptr("gold"),
					VolumeMode:                    &block,
				},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}},
			want: []string{"pv-1", "10Gi", "RWO,ROX,RWOP", "Retain", "Bound", "db/data-0", "fast", "gold", "", "5m", "Block"},
		},
		{
			// A deletionTimestamp gives Terminating; the beta storage-class annotation wins over
			// spec.storageClassName; no capacity prints "0"; unset class and mode print "<unset>".
			name: "terminating, beta class",
			obj: func() *corev1.PersistentVolume {
				pv := &corev1.PersistentVolume{ObjectMeta: objMeta("pv-2"),
					Spec:   corev1.PersistentVolumeSpec{StorageClassName: "fast", PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete},
					Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeFailed, Reason: "Recycler failed"}}
				pv.Annotations = map[string]string{betaStorageClassAnnotation: "old"}
				pv.DeletionTimestamp = agoPtr(time.Second)
				return pv
			}(),
			want: []string{"pv-2", "0", "", "Delete", "Terminating", "", "old", "<unset>", "Recycler failed", "5m", "<unset>"},
		},
	})
}

func TestPersistentVolumeClaimRow(t *testing.T) {
	fs := corev1.PersistentVolumeFilesystem
	runRows(t, schema.GroupResource{Resource: "persistentvolumeclaims"}, []rowCase{
		{
			// Bound: CAPACITY and ACCESS MODES from status, not from the request.
			name: "bound",
			obj: &corev1.PersistentVolumeClaim{ObjectMeta: objMeta("data-0"),
				Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1", StorageClassName: ptr("fast"), VolumeMode: &fs,
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}}},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound,
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}},
			want: []string{"data-0", "Bound", "pv-1", "10Gi", "RWO", "fast", "<unset>", "5m", "Filesystem"},
		},
		{
			// Pending, no volume: empty VOLUME, CAPACITY and ACCESS MODES; no class: empty.
			name: "pending",
			obj: &corev1.PersistentVolumeClaim{ObjectMeta: objMeta("data-1"),
				Spec: corev1.PersistentVolumeClaimSpec{
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}}},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}},
			want: []string{"data-1", "Pending", "", "", "", "", "<unset>", "5m", "<unset>"},
		},
		{
			// Terminating; the beta annotation wins over spec.storageClassName.
			name: "terminating",
			obj: func() *corev1.PersistentVolumeClaim {
				pvc := &corev1.PersistentVolumeClaim{ObjectMeta: objMeta("data-2"),
					Spec:   corev1.PersistentVolumeClaimSpec{StorageClassName: ptr("fast"), VolumeAttributesClassName: ptr("gold")},
					Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
				pvc.Annotations = map[string]string{betaStorageClassAnnotation: "old"}
				pvc.DeletionTimestamp = agoPtr(time.Second)
				return pvc
			}(),
			want: []string{"data-2", "Terminating", "", "", "", "old", "gold", "5m", "<unset>"},
		},
	})
}

func TestStorageClassRow(t *testing.T) {
	def := objMeta("fast")
	def.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
	beta := objMeta("old")
	beta.Annotations = map[string]string{"storageclass.beta.kubernetes.io/is-default-class": "true"}
	runRows(t, schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}, []rowCase{
		{
			// Unset fields print the server's defaults: Delete, Immediate, false.
			name: "defaults",
			obj:  &storagev1.StorageClass{ObjectMeta: objMeta("standard"), Provisioner: "csi.example.com"},
			want: []string{"standard", "csi.example.com", "Delete", "Immediate", "false", "5m"},
		},
		{
			// The default class: NAME ends in " (default)".
			name: "default class",
			obj: &storagev1.StorageClass{ObjectMeta: def, Provisioner: "csi.example.com",
				ReclaimPolicy:        ptr(corev1.PersistentVolumeReclaimRetain),
				VolumeBindingMode:    ptr(storagev1.VolumeBindingWaitForFirstConsumer),
				AllowVolumeExpansion: ptr(true)},
			want: []string{"fast (default)", "csi.example.com", "Retain", "WaitForFirstConsumer", "true", "5m"},
		},
		{
			name: "beta default annotation",
			obj:  &storagev1.StorageClass{ObjectMeta: beta, Provisioner: "p"},
			want: []string{"old (default)", "p", "Delete", "Immediate", "false", "5m"},
		},
	})
}

func TestCSIDriverRow(t *testing.T) {
	runRows(t, schema.GroupResource{Group: "storage.k8s.io", Resource: "csidrivers"}, []rowCase{
		{
			// Unset booleans print their defaults (attachRequired true); no token requests
			// "<unset>"; no modes "<none>".
			name: "defaults",
			obj:  &storagev1.CSIDriver{ObjectMeta: objMeta("csi.example.com")},
			want: []string{"csi.example.com", "true", "false", "false", "<unset>", "false", "<none>", "5m"},
		},
		{
			name: "set",
			obj: &storagev1.CSIDriver{ObjectMeta: objMeta("csi.example.com"), Spec: storagev1.CSIDriverSpec{
				AttachRequired: ptr(false), PodInfoOnMount: ptr(true), StorageCapacity: ptr(true), RequiresRepublish: ptr(true),
				TokenRequests:        []storagev1.TokenRequest{{Audience: "a"}, {Audience: "b"}},
				VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent, storagev1.VolumeLifecycleEphemeral}}},
			want: []string{"csi.example.com", "false", "true", "true", "a,b", "true", "Persistent,Ephemeral", "5m"},
		},
	})
}

func TestStorageRows(t *testing.T) {
	runRows(t, schema.GroupResource{Group: "storage.k8s.io", Resource: "csinodes"}, []rowCase{
		{name: "drivers", obj: &storagev1.CSINode{ObjectMeta: objMeta("node-1"), Spec: storagev1.CSINodeSpec{
			Drivers: []storagev1.CSINodeDriver{{Name: "a"}, {Name: "b"}}}}, want: []string{"node-1", "2", "5m"}},
	})
	runRows(t, schema.GroupResource{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}, []rowCase{
		{name: "class", obj: &storagev1.VolumeAttributesClass{ObjectMeta: objMeta("gold"), DriverName: "csi.example.com"},
			want: []string{"gold", "csi.example.com", "5m"}},
	})
	runRows(t, schema.GroupResource{Group: "storage.k8s.io", Resource: "volumeattachments"}, []rowCase{
		{name: "attached", obj: &storagev1.VolumeAttachment{ObjectMeta: objMeta("va"), Spec: storagev1.VolumeAttachmentSpec{
			Attacher: "csi.example.com", NodeName: "node-1", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr("pv-1")}},
			Status: storagev1.VolumeAttachmentStatus{Attached: true}},
			want: []string{"va", "csi.example.com", "pv-1", "node-1", "true", "5m"}},
		// An inline volume has no PV name.
		{name: "inline", obj: &storagev1.VolumeAttachment{ObjectMeta: objMeta("va"), Spec: storagev1.VolumeAttachmentSpec{
			Attacher: "csi.example.com", NodeName: "node-1"}},
			want: []string{"va", "csi.example.com", "", "node-1", "false", "5m"}},
	})
}
