package expr

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	corev1 "k8s.io/api/core/v1"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// usageVar is the variable that holds an object's usage.
const usageVar = "usage"

// UsageFunc returns the usage of the object an expression is evaluated on,
// resource name to quantity ("cpu" in cores, "memory" in bytes), and false
// when there is none (no sample of it, or nothing read the metrics API).
type UsageFunc func(obj any) (corev1.ResourceList, bool)

// noUsage is the value of usage for an object without one: an empty map, so
// that has(usage.cpu) is false and usage.?cpu has no value.
var noUsage = types.NewStringInterfaceMap(types.DefaultTypeAdapter, map[string]any{})

// usageValue is the value of usage for obj: a map of resource name to
// quantity (the Kubernetes quantity library's type).
func usageValue(f UsageFunc, obj any) ref.Val {
	if f == nil {
		return noUsage
	}
	list, ok := f(obj)
	if !ok || len(list) == 0 {
		return noUsage
	}
	m := make(map[string]any, len(list))
	for name, q := range list {
		q := q.DeepCopy()
		m[string(name)] = apiservercel.Quantity{Quantity: &q}
	}
	return types.NewStringInterfaceMap(types.DefaultTypeAdapter, m)
}

// ReadsUsage reports whether the expression refers to the variable usage:
// then the caller should read the metrics API and evaluate it through a
// Guard that has the usage ([Guard.WithUsage]).
func (p *Program) ReadsUsage() bool { return p.readsUsage }

// WithUsage returns a Guard of g's program that counts its failures apart
// from g's and whose evaluations see, in the variable usage, what f returns
// for each object.
func (g *Guard) WithUsage(f UsageFunc) *Guard {
	out := NewGuard(g.prg)
	out.usage = f
	return out
}
