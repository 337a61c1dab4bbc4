package watch

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// ownedPod returns testpods.Pod with managedFields as the engine keeps them for
// watch (engine.InternManagedFields): the metadata and spec owned by
// kube-controller-manager, the status by kwok, both last written at the same
// second.
func ownedPod() *corev1.Pod {
	p := testpods.Pod()
	now := metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	p.ManagedFields = []metav1.ManagedFieldsEntry{
		{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:tier":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"main\"}":{".":{},"f:image":{},"f:name":{}}}}}`)},
		{Manager: "kwok", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", APIVersion: "v1", Time: &now, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:phase":{}}}`)},
	}
	return p
}

func TestWatchNamesWhoChangedIt(t *testing.T) {
	tests := []struct {
		name         string
		edit         func(p *corev1.Pod)
		wantManagers []string
		wantCause    string
		wantHeader   string
	}{
		{
			// kwok's time did not move: within the same second.
			name: "status by kwok",
			edit: func(p *corev1.Pod) {
				p.Status.Conditions[1].Status = corev1.ConditionFalse
				p.Status.ContainerStatuses[0].Ready = false
			},
			wantManagers: []string{"kwok/Update/status"},
			wantHeader:   "(by kwok/Update/status)",
		},
		{
			name:         "image by key name=main",
			edit:         func(p *corev1.Pod) { p.Spec.Containers[0].Image = "registry.example.com/image-2:v2" },
			wantManagers: []string{"kube-controller-manager/Update"},
			wantHeader:   "(by kube-controller-manager/Update)",
		},
		{
			name: "two managers",
			edit: func(p *corev1.Pod) {
				p.Labels["tier"] = "db"
				p.Status.Phase = corev1.PodSucceeded
			},
			wantManagers: []string{"kube-controller-manager/Update", "kwok/Update/status"},
			wantHeader:   "(by kube-controller-manager/Update, kwok/Update/status)",
		},
		{
			name: "deletion requested: no owner, a label",
			edit: func(p *corev1.Pod) {
				ts, grace := metav1.NewTime(time.Date(2026, 11, 23, 12, 1, 0, 0, time.UTC)), int64(30)
				p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, &grace
			},
			wantCause:  "deletion requested",
			wantHeader: "(deletion requested)",
		},
		{
			name:       "a field no one owns: nothing",
			edit:       func(p *corev1.Pod) { p.Annotations["seed.kubectl-informer.io/churn"] = "18" },
			wantHeader: "-n seed-0\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := ownedPod()
			new := old.DeepCopy()
			new.ResourceVersion = "123457"
			tt.edit(new)

			var out bytes.Buffer
			text := printEvent(t, testPrinter(t, &out, "text", "compact"), &out, old, new)
			if first := strings.SplitAfter(text, "\n")[0]; !strings.Contains(first, tt.wantHeader) {
				t.Errorf("text header = %q, want it to hold %q", first, tt.wantHeader)
			}
			var ev jsonEvent
			line := printEvent(t, testPrinter(t, &out, "json", "compact"), &out, old, new)
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("decoding %s: %v", line, err)
			}
			if strings.Join(ev.Managers, ",") != strings.Join(tt.wantManagers, ",") || ev.Cause != tt.wantCause {
				t.Errorf("-o json managers, cause = %q, %q, want %q, %q", ev.Managers, ev.Cause, tt.wantManagers, tt.wantCause)
			}
		})
	}
}

// An update that enters or leaves a --where query is printed as ADDED or
// DELETED, with who made it.
func TestWatchNamesWhoMovedAnObjectInOrOutOfTheQuery(t *testing.T) {
	set, err := index.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	def, err := set.Lookup("label:tier")
	if err != nil {
		t.Fatal(err)
	}
	sel, err := index.ParseSelector("--where", "label:tier=web")
	if err != nil {
		t.Fatal(err)
	}
	old := ownedPod()
	new := old.DeepCopy()
	new.ResourceVersion = "123457"
	new.Labels["tier"] = "db"
	for _, tt := range []struct {
		name       string
		old, new   *corev1.Pod
		wantHeader string
	}{
		{"left", old, new, "DELETED  pod/pod-00042 -n seed-0  (by kube-controller-manager/Update; left query)"},
		{"entered", new, old, "ADDED    pod/pod-00042 -n seed-0  (by kube-controller-manager/Update; entered query)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := testPrinter(t, &out, "text", "compact")
			p.Cfg.Where = []WhereClause{{Sel: sel, Def: def}}
			got := printEvent(t, p, &out, tt.old, tt.new)
			if strings.TrimSpace(got) != tt.wantHeader {
				t.Errorf("printed %q, want %q", got, tt.wantHeader)
			}
		})
	}
}

// With --only, the managers are those of the changes shown.
func TestWatchNamesWhoChangedWhatIsShown(t *testing.T) {
	old := ownedPod()
	new := old.DeepCopy()
	new.ResourceVersion = "123457"
	new.Labels["tier"] = "db"
	new.Status.Phase = corev1.PodSucceeded
	only, err := diff.ParsePath("status")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := testPrinter(t, &out, "text", "compact")
	p.Cfg.DiffOptions.Only = []diff.Path{only}
	got := printEvent(t, p, &out, old, new)
	if first := strings.SplitAfter(got, "\n")[0]; !strings.Contains(first, "(by kwok/Update/status)\n") {
		t.Errorf("with --only status, header = %q, want (by kwok/Update/status)", first)
	}
}

// BenchmarkWatchAttribution is BenchmarkWatchPrinter's status update of a
// pod whose managedFields carry their fieldsV1 sets, as watch caches them.
func BenchmarkWatchAttribution(b *testing.B) {
	for _, output := range []string{"text", "json"} {
		b.Run(output, func(b *testing.B) {
			old := ownedPod()
			new := old.DeepCopy()
			new.ResourceVersion = "123457"
			new.Status.Phase = corev1.PodPending
			new.Status.Conditions[1].Status = corev1.ConditionFalse
			p := testPrinter(b, io.Discard, output, "compact")
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Handle(&engine.Event{Type: engine.Modified, Resource: podsType, Old: old, New: new, Key: "seed-0/pod-00042"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
