package expr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// FuzzCompileEval compiles any text as a predicate and as a value and
// evaluates what compiles on a pod: it must not panic, every error must be of
// the documented type and name the flag, and the cost limit must stop it.
func FuzzCompileEval(f *testing.F) {
	for _, src := range []string{
		"object.status.containerStatuses.exists(c, c.restartCount > 3)",
		"object.spec.containers.exists(c, !has(c.resources.limits) || !('memory' in c.resources.limits))",
		"now - timestamp(object.metadata.creationTimestamp) > duration('24h')",
		"quantity(object.spec.containers[0].resources.requests.cpu).isGreaterThan(quantity('100m'))",
		"object.spec.containers.map(c, c.image.split('/')[0])",
		"object.metadata.?labels.tier",
		"url('https://' + object.spec.containers[0].image).getHostname()",
		"lists.range(1000).all(x, lists.range(1000).all(y, x + y >= 0))",
		"object.metadata.name.matches('^web-[a-z0-9]+$')",
		"objet.x ==",
		"",
	} {
		f.Add(src)
	}
	typed := deploymentPod()
	obj, err := ToObject(typed)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, kind := range []Kind{Predicate, Value} {
			// A lower limit than the default keeps each run short; the
			// bound is the same code.
			p, err := CompileWithLimit("--fuzz", src, kind, 20000)
			if err != nil {
				var ce *CompileError
				if !errors.As(err, &ce) {
					t.Fatalf("Compile(%q, %v) error %T %v, want a *CompileError", src, kind, err, err)
				}
				for _, is := range ce.Issues {
					if is.Line < 1 || is.Column < 1 {
						t.Fatalf("Compile(%q, %v) issue at %d:%d, want 1-based", src, kind, is.Line, is.Column)
					}
				}
				if !strings.HasPrefix(err.Error(), "--fuzz: ") {
					t.Fatalf("Compile(%q, %v) error %q does not name the flag", src, kind, err)
				}
				continue
			}
			// The typed pod is read as far as the expression's paths: the
			// same result, and the same error, as the whole pod.
			var got, projected any
			var projectedErr error
			if kind == Predicate {
				got, err = p.Match(context.Background(), obj, testNow)
				projected, projectedErr = p.Match(context.Background(), typed, testNow)
			} else {
				got, err = p.Values(context.Background(), obj, testNow)
				projected, projectedErr = p.Values(context.Background(), typed, testNow)
			}
			if fmt.Sprint(got, err) != fmt.Sprint(projected, projectedErr) {
				t.Fatalf("eval(%q, %v) = %v, %v on the whole pod, %v, %v on the typed pod", src, kind, got, err, projected, projectedErr)
			}
			if err != nil {
				var ee *EvalError
				if !errors.As(err, &ee) {
					t.Fatalf("eval(%q, %v) error %T %v, want an *EvalError", src, kind, err, err)
				}
			}
		}
	})
}
