package columns

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const admissionGroup = "admissionregistration.k8s.io"

func TestWebhookConfigurationRows(t *testing.T) {
	two := []admissionregistrationv1.MutatingWebhook{{Name: "a.example.com"}, {Name: "b.example.com"}}
	runRows(t, schema.GroupResource{Group: admissionGroup, Resource: "mutatingwebhookconfigurations"}, []rowCase{
		{name: "two webhooks", obj: &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: objMeta("hooks"), Webhooks: two},
			want: []string{"hooks", "2", "5m"}},
	})
	runRows(t, schema.GroupResource{Group: admissionGroup, Resource: "validatingwebhookconfigurations"}, []rowCase{
		{name: "none", obj: &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: objMeta("hooks")},
			want: []string{"hooks", "0", "5m"}},
	})
}

func TestAdmissionPolicyRows(t *testing.T) {
	kind := &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	runRows(t, schema.GroupResource{Group: admissionGroup, Resource: "validatingadmissionpolicies"}, []rowCase{
		{
			// VALIDATIONS counts the rules; PARAMKIND apiVersion/kind.
			name: "with param kind",
			obj: &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: objMeta("p"), Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				ParamKind: kind, Validations: []admissionregistrationv1.Validation{{Expression: "true"}, {Expression: "1 == 1"}}}},
			want: []string{"p", "2", "v1/ConfigMap", "5m"},
		},
		{
			name: "no param kind",
			obj:  &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: objMeta("p")},
			want: []string{"p", "0", "<unset>", "5m"},
		},
	})
	runRows(t, schema.GroupResource{Group: admissionGroup, Resource: "mutatingadmissionpolicies"}, []rowCase{
		{
			name: "one mutation",
			obj: &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: objMeta("m"), Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
				ParamKind: kind, Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration}}}},
			want: []string{"m", "1", "v1/ConfigMap", "5m"},
		},
	})
}

func TestAdmissionPolicyBindingRows(t *testing.T) {
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	refs := []struct {
		name string
		ref  *admissionregistrationv1.ParamRef
		want string
	}{
		// PARAMREF namespace/name; "*/name" without a namespace; the selector in its Go
		// string form; "<unset>".
		{"namespaced", &admissionregistrationv1.ParamRef{Name: "settings", Namespace: "web"}, "web/settings"},
		{"no namespace", &admissionregistrationv1.ParamRef{Name: "settings"}, "*/settings"},
		{"selector", &admissionregistrationv1.ParamRef{Selector: selector}, selector.String()},
		{"empty", &admissionregistrationv1.ParamRef{}, "<unset>"},
		{"unset", nil, "<unset>"},
	}
	var validating, mutating []rowCase
	for _, r := range refs {
		validating = append(validating, rowCase{name: r.name,
			obj: &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: objMeta("b"),
				Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "p", ParamRef: r.ref}},
			want: []string{"b", "p", r.want, "5m"}})
		mutating = append(mutating, rowCase{name: r.name,
			obj: &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: objMeta("b"),
				Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "p", ParamRef: r.ref}},
			want: []string{"b", "p", r.want, "5m"}})
	}
	runRows(t, schema.GroupResource{Group: admissionGroup, Resource: "validatingadmissionpolicybindings"}, validating)
	runRows(t, schema.GroupResource{Group: admissionGroup, Resource: "mutatingadmissionpolicybindings"}, mutating)
}
