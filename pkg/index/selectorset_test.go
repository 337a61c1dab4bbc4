package index

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSelectorSet(t *testing.T) {
	svc := func(name string, sel map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Spec: corev1.ServiceSpec{Selector: sel}}
	}
	s := NewSelectorSet([]interface{}{svc("web", map[string]string{"app": "web"}), &corev1.ConfigMap{}})
	names := func() []string {
		var out []string
		for _, sel := range s.PodSelectors("shop") {
			out = append(out, sel.Kind+"/"+sel.Name+" "+sel.Selector.String())
		}
		return out
	}
	steps := []struct {
		what        string
		do          func() (PodSelector, bool)
		wantChanged bool
		want        []string
	}{
		{"the same selector again", func() (PodSelector, bool) { return s.Set(svc("web", map[string]string{"app": "web"})) }, false, []string{"Service/web app=web"}},
		{"another selector", func() (PodSelector, bool) { return s.Set(svc("web", map[string]string{"app": "api"})) }, true, []string{"Service/web app=api"}},
		{"a new service", func() (PodSelector, bool) { return s.Set(svc("api", nil)) }, true, []string{"Service/api ", "Service/web app=api"}},
		{"not a selector kind", func() (PodSelector, bool) { return s.Set(&corev1.ConfigMap{}) }, false, []string{"Service/api ", "Service/web app=api"}},
		{"delete", func() (PodSelector, bool) { return s.Delete(svc("web", nil)) }, true, []string{"Service/api "}},
		{"delete again", func() (PodSelector, bool) { return s.Delete(svc("web", nil)) }, false, []string{"Service/api "}},
	}
	for _, step := range steps {
		sel, changed := step.do()
		if changed != step.wantChanged {
			t.Errorf("%s: changed = %v, want %v", step.what, changed, step.wantChanged)
		}
		if changed && sel.Namespace != "shop" {
			t.Errorf("%s: namespace %q, want shop", step.what, sel.Namespace)
		}
		if got := names(); !slices.Equal(got, step.want) {
			t.Errorf("%s: selectors %q, want %q", step.what, got, step.want)
		}
	}
	if got := s.PodSelectors("other"); len(got) != 0 {
		t.Errorf("selectors of another namespace: %v", got)
	}
}
