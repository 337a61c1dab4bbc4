package aggregate

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// resourceNames are the names the tests ask for: the pod-level ones (cpu, memory, hugepages),
// others, and extended resources.
var resourceNames = []corev1.ResourceName{"cpu", "memory", "hugepages-2Mi", "ephemeral-storage", "nvidia.com/gpu", "example.com/dongle"}

// wantRequest and wantLimit are what the lists of component-helpers hold for name, computed on a
// copy of pod, as component-helpers may write into the pod's own quantities.
func wantRequest(pod *corev1.Pod, name corev1.ResourceName) resource.Quantity {
	if IsTerminal(pod) {
		return resource.Quantity{}
	}
	return resourcehelper.PodRequests(pod.DeepCopy(), SchedulerOptions)[name]
}

func wantLimit(pod *corev1.Pod, name corev1.ResourceName) resource.Quantity {
	if IsTerminal(pod) {
		return resource.Quantity{}
	}
	return resourcehelper.PodLimits(pod.DeepCopy(), SchedulerOptions)[name]
}

// checkSameQuantity fails unless got is want: the same value in the same representation and
// format, so that sums and printed columns cannot differ.
func checkSameQuantity(t *testing.T, what string, got, want resource.Quantity) {
	t.Helper()
	if got.Cmp(want) != 0 || got.Format != want.Format || got.String() != want.String() || !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %s (%#v), want %s (%#v) as component-helpers computes it", what, got.String(), got, want.String(), want)
	}
}

// checkPod compares PodRequest and PodLimit with component-helpers for every resource name, and
// checks that they leave the pod alone.
func checkPod(t *testing.T, pod *corev1.Pod) {
	t.Helper()
	before := pod.DeepCopy()
	for _, name := range resourceNames {
		checkSameQuantity(t, fmt.Sprintf("PodRequest(%s, %s)", pod.Name, name), PodRequest(pod, name), wantRequest(pod, name))
		checkSameQuantity(t, fmt.Sprintf("PodLimit(%s, %s)", pod.Name, name), PodLimit(pod, name), wantLimit(pod, name))
	}
	if !reflect.DeepEqual(pod, before) {
		t.Errorf("PodRequest/PodLimit changed pod %s", pod.Name)
	}
}

func TestPodResourceFixtures(t *testing.T) {
	for _, pod := range allPods() {
		t.Run(pod.Name, func(t *testing.T) {
			checkPod(t, pod)
			// The measures read the same values.
			for _, name := range resourceNames {
				for _, tt := range []struct {
					measure string
					want    resource.Quantity
				}{
					{"requests." + string(name), PodRequests(pod)[name]},
					{"limits." + string(name), PodLimits(pod)[name]},
				} {
					got, err := mustMeasure(t, tt.measure).Value(pod)
					if err != nil {
						t.Fatalf("%s.Value(%s) error: %v", tt.measure, pod.Name, err)
					}
					checkSameQuantity(t, tt.measure+".Value("+pod.Name+")", got, tt.want)
				}
			}
		})
	}
}

// randomQuantities mix formats (DecimalSI, BinarySI, DecimalExponent), zeros, fractions and values
// beyond int64 so that sums take every path of Quantity arithmetic.
var randomQuantities = []string{
	"0", "0Mi", "100m", "250m", "1", "2", "1.5", "3", "1Gi", "512Mi", "128Mi", "1G", "500M", "1e3", "2e-3",
	"1Ki", "1024", "0.1", "7", "9223372036854775807", "100000000000000000000", "1.000000001", "4Ti",
}

// randomPodGen builds random pods for the comparison with component-helpers.
type randomPodGen struct{ r *rand.Rand }

func (g randomPodGen) list() corev1.ResourceList {
	switch g.r.Intn(6) {
	case 0:
		return nil
	case 1:
		return corev1.ResourceList{}
	}
	l := corev1.ResourceList{}
	for _, name := range resourceNames {
		if g.r.Intn(5) < 2 {
			l[name] = resource.MustParse(randomQuantities[g.r.Intn(len(randomQuantities))])
		}
	}
	return l
}

func (g randomPodGen) requirements() *corev1.ResourceRequirements {
	if g.r.Intn(3) == 0 {
		return nil
	}
	return &corev1.ResourceRequirements{Requests: g.list(), Limits: g.list()}
}

func (g randomPodGen) containers(prefix string, sidecars bool) []corev1.Container {
	n := g.r.Intn(4)
	cs := make([]corev1.Container, n)
	for i := range cs {
		name := fmt.Sprintf("%s%d", prefix, i)
		if g.r.Intn(8) == 0 {
			name = fmt.Sprintf("c%d", i) // the name of an app container: statuses are found by name
		}
		cs[i] = ctr(name, g.list(), g.list())
		if sidecars && g.r.Intn(2) == 0 {
			policy := corev1.ContainerRestartPolicyAlways
			if g.r.Intn(4) == 0 {
				policy = corev1.ContainerRestartPolicyOnFailure
			}
			cs[i].RestartPolicy = &policy
		}
	}
	return cs
}

func (g randomPodGen) statuses(cs []corev1.Container) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for _, c := range cs {
		if g.r.Intn(3) == 0 {
			continue
		}
		s := corev1.ContainerStatus{Name: c.Name, Resources: g.requirements()}
		if g.r.Intn(2) == 0 {
			s.AllocatedResources = g.list()
		}
		out = append(out, s)
	}
	return out
}

func (g randomPodGen) pod(i int) *corev1.Pod {
	pod := podOn(fmt.Sprintf("random-%d", i), "node-1", g.containers("c", false)...)
	pod.Spec.InitContainers = g.containers("i", true)
	pod.Status.ContainerStatuses = g.statuses(pod.Spec.Containers)
	pod.Status.InitContainerStatuses = g.statuses(pod.Spec.InitContainers)
	if g.r.Intn(3) == 0 {
		pod.Spec.Overhead = g.list()
	}
	if g.r.Intn(3) == 0 {
		pod.Spec.Resources = g.requirements()
	}
	if g.r.Intn(3) == 0 {
		pod.Status.Resources = g.requirements()
	}
	if g.r.Intn(3) == 0 {
		pod.Status.AllocatedResources = g.list()
	}
	switch g.r.Intn(5) {
	case 0:
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodResizePending, Reason: corev1.PodReasonInfeasible}}
	case 1:
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodResizePending, Reason: corev1.PodReasonDeferred}}
	}
	pod.Status.Phase = []corev1.PodPhase{corev1.PodRunning, corev1.PodPending, corev1.PodSucceeded, corev1.PodFailed, corev1.PodRunning}[g.r.Intn(5)]
	return pod
}

// TestPodResourceRandom compares PodRequest and PodLimit with component-helpers on random pods.
func TestPodResourceRandom(t *testing.T) {
	g := randomPodGen{r: rand.New(rand.NewSource(1))}
	n := 10000
	if testing.Short() {
		n = 2000
	}
	for i := 0; i < n && !t.Failed(); i++ {
		checkPod(t, g.pod(i))
	}
}

// FuzzPodResource compares PodRequest and PodLimit with component-helpers on the random pod of
// each seed: go test -fuzz FuzzPodResource ./pkg/aggregate/.
func FuzzPodResource(f *testing.F) {
	for _, seed := range []int64{0, 1, 2, 42, 1 << 40} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		checkPod(t, randomPodGen{r: rand.New(rand.NewSource(seed))}.pod(0))
	})
}

// BenchmarkPodRequestMeasure compares the requests.cpu measure computed for its one resource
// with the lists of component-helpers it replaces, per pod.
func BenchmarkPodRequestMeasure(b *testing.B) {
	pods := []*corev1.Pod{plainPod, sidecarPod, resizedPod, overheadPod}
	b.Run("component-helpers", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			l := PodRequests(pods[i%len(pods)])
			_ = l[corev1.ResourceCPU].DeepCopy()
		}
	})
	b.Run("one-resource", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = PodRequest(pods[i%len(pods)], corev1.ResourceCPU)
		}
	})
	m := mustMeasure(b, "requests.cpu")
	b.Run("measure", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := m.Value(pods[i%len(pods)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
