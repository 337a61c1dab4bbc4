package expr

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestUsageVariable(t *testing.T) {
	busy := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "busy"}}
	idle := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "idle"}}
	unsampled := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "new"}}
	usage := func(obj any) (corev1.ResourceList, bool) {
		switch obj.(*corev1.Pod).Name {
		case "busy":
			return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("750m"), corev1.ResourceMemory: resource.MustParse("2Gi")}, true
		case "idle":
			return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1m"), corev1.ResourceMemory: resource.MustParse("10Mi")}, true
		}
		return nil, false
	}
	tests := []struct {
		src                   string
		busy, idle, unsampled bool
		failures              int
		readsUsage            bool
	}{
		{src: `usage.cpu.isGreaterThan(quantity('500m'))`, busy: true, failures: 1, readsUsage: true},
		{src: `has(usage.cpu) && usage.memory.compareTo(quantity('1Gi')) < 0`, idle: true, readsUsage: true},
		{src: `!has(usage.cpu)`, unsampled: true, readsUsage: true},
		{src: `usage.?cpu.orValue(quantity('0')).isLessThan(quantity('100m'))`, idle: true, unsampled: true, readsUsage: true},
		{src: `object.metadata.name == 'busy'`, busy: true},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			prg, err := Compile("--filter", tt.src, Predicate)
			if err != nil {
				t.Fatalf("Compile() error = %v", err)
			}
			if prg.ReadsUsage() != tt.readsUsage {
				t.Errorf("ReadsUsage() = %v, want %v", prg.ReadsUsage(), tt.readsUsage)
			}
			g := NewGuard(prg).WithUsage(usage)
			for _, c := range []struct {
				pod  *corev1.Pod
				want bool
			}{{busy, tt.busy}, {idle, tt.idle}, {unsampled, tt.unsampled}} {
				if got := g.Match(context.Background(), c.pod, time.Now()); got != c.want {
					t.Errorf("Match(%s) = %v, want %v", c.pod.Name, got, c.want)
				}
			}
			if g.Count() != tt.failures {
				t.Errorf("failures = %d, want %d (%v)", g.Count(), tt.failures, g.Err())
			}
		})
	}
	// Without usage, every object has none.
	prg, _ := Compile("--filter", `!has(usage.cpu)`, Predicate)
	if ok, err := prg.Match(context.Background(), busy, time.Now()); !ok || err != nil {
		t.Errorf("Program.Match without usage = %v, %v, want true", ok, err)
	}
}

func TestUsageIsNotAnIndexValue(t *testing.T) {
	_, err := Compile("--indexer busy", `usage.?cpu.orValue(quantity('0')).isGreaterThan(quantity('1'))`, Value)
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "--filter only") {
		t.Errorf("Compile(a Value reading usage) error = %v, want a CompileError saying --filter only", err)
	}
}
