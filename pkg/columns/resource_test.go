package columns

import (
	"testing"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const resourceGroup = "resource.k8s.io"

// metav1Condition returns a True condition of type typ.
func metav1Condition(typ string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: metav1.ConditionTrue}
}

func TestResourceRows(t *testing.T) {
	runRows(t, schema.GroupResource{Group: resourceGroup, Resource: "deviceclasses"}, []rowCase{
		{name: "class", obj: &resourcev1.DeviceClass{ObjectMeta: objMeta("gpu")}, want: []string{"gpu", "5m"}},
	})
	runRows(t, schema.GroupResource{Group: resourceGroup, Resource: "resourceclaimtemplates"}, []rowCase{
		{name: "template", obj: &resourcev1.ResourceClaimTemplate{ObjectMeta: objMeta("gpu")}, want: []string{"gpu", "5m"}},
	})
	runRows(t, schema.GroupResource{Group: resourceGroup, Resource: "resourceslices"}, []rowCase{
		{name: "node", obj: &resourcev1.ResourceSlice{ObjectMeta: objMeta("s"), Spec: resourcev1.ResourceSliceSpec{
			Driver: "gpu.example.com", NodeName: ptr("node-1"), Pool: resourcev1.ResourcePool{Name: "pool-1"}}},
			want: []string{"s", "node-1", "gpu.example.com", "pool-1", "5m"}},
		{name: "all nodes", obj: &resourcev1.ResourceSlice{ObjectMeta: objMeta("s"), Spec: resourcev1.ResourceSliceSpec{
			Driver: "gpu.example.com", AllNodes: ptr(true), Pool: resourcev1.ResourcePool{Name: "pool-1"}}},
			want: []string{"s", "", "gpu.example.com", "pool-1", "5m"}},
	})
	runRows(t, schema.GroupResource{Group: resourceGroup, Resource: "devicetaintrules"}, []rowCase{
		{name: "added", obj: &resourcev1.DeviceTaintRule{ObjectMeta: objMeta("r"), Spec: resourcev1.DeviceTaintRuleSpec{
			Taint: resourcev1.DeviceTaint{Key: "example.com/broken", Value: "yes", Effect: resourcev1.DeviceTaintEffectNoSchedule, TimeAdded: agoPtr(time.Minute)}}},
			want: []string{"r", "example.com/broken", "yes", "NoSchedule", "60s", "5m"}},
		{name: "no time added", obj: &resourcev1.DeviceTaintRule{ObjectMeta: objMeta("r"), Spec: resourcev1.DeviceTaintRuleSpec{
			Taint: resourcev1.DeviceTaint{Key: "k", Effect: resourcev1.DeviceTaintEffectNoExecute}}},
			want: []string{"r", "k", "", "NoExecute", "", "5m"}},
	})

	claim := func(allocated bool, reserved bool, deleting bool) *resourcev1.ResourceClaim {
		c := &resourcev1.ResourceClaim{ObjectMeta: objMeta("gpu")}
		if allocated {
			c.Status.Allocation = &resourcev1.AllocationResult{}
		}
		if reserved {
			c.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "web-1", UID: "u1"}}
		}
		if deleting {
			c.DeletionTimestamp = agoPtr(time.Second)
		}
		return c
	}
	runRows(t, schema.GroupResource{Group: resourceGroup, Resource: "resourceclaims"}, []rowCase{
		{name: "pending", obj: claim(false, false, false), want: []string{"gpu", "pending", "5m"}},
		{name: "allocated", obj: claim(true, false, false), want: []string{"gpu", "allocated", "5m"}},
		{name: "reserved", obj: claim(true, true, false), want: []string{"gpu", "allocated,reserved", "5m"}},
		{name: "deleted", obj: claim(false, false, true), want: []string{"gpu", "deleted", "5m"}},
		{name: "deleted allocated", obj: claim(true, true, true), want: []string{"gpu", "deleted,allocated,reserved", "5m"}},
	})
}
