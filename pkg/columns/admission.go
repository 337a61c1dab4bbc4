package columns

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

var mutatingWebhookConfigurationTable = Table{
	Columns: columnsOf([]string{"Name", "Webhooks", "Age"}),
	Row: typedRow(func(c *admissionregistrationv1.MutatingWebhookConfiguration, now time.Time) []string {
		return []string{c.Name, int64Cell(len(c.Webhooks)), age(c.CreationTimestamp, now)}
	}),
}

var validatingWebhookConfigurationTable = Table{
	Columns: mutatingWebhookConfigurationTable.Columns,
	Row: typedRow(func(c *admissionregistrationv1.ValidatingWebhookConfiguration, now time.Time) []string {
		return []string{c.Name, int64Cell(len(c.Webhooks)), age(c.CreationTimestamp, now)}
	}),
}

var validatingAdmissionPolicyTable = Table{
	Columns: columnsOf([]string{"Name", "Validations", "ParamKind", "Age"}),
	Row: typedRow(func(p *admissionregistrationv1.ValidatingAdmissionPolicy, now time.Time) []string {
		return []string{p.Name, int64Cell(len(p.Spec.Validations)), paramKind(p.Spec.ParamKind), age(p.CreationTimestamp, now)}
	}),
}

var mutatingAdmissionPolicyTable = Table{
	Columns: columnsOf([]string{"Name", "Mutations", "ParamKind", "Age"}),
	Row: typedRow(func(p *admissionregistrationv1.MutatingAdmissionPolicy, now time.Time) []string {
		return []string{p.Name, int64Cell(len(p.Spec.Mutations)), paramKind(p.Spec.ParamKind), age(p.CreationTimestamp, now)}
	}),
}

var validatingAdmissionPolicyBindingTable = Table{
	Columns: columnsOf([]string{"Name", "PolicyName", "ParamRef", "Age"}),
	Row: typedRow(func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, now time.Time) []string {
		return []string{b.Name, b.Spec.PolicyName, paramRef(b.Spec.ParamRef), age(b.CreationTimestamp, now)}
	}),
}

var mutatingAdmissionPolicyBindingTable = Table{
	Columns: validatingAdmissionPolicyBindingTable.Columns,
	Row: typedRow(func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding, now time.Time) []string {
		return []string{b.Name, b.Spec.PolicyName, paramRef(b.Spec.ParamRef), age(b.CreationTimestamp, now)}
	}),
}

// paramKind is the PARAMKIND cell of printers.go's admission policy printers: apiVersion/kind,
// or "<unset>".
func paramKind(k *admissionregistrationv1.ParamKind) string {
	if k == nil {
		return "<unset>"
	}
	return k.APIVersion + "/" + k.Kind
}

// paramRef is the PARAMREF cell of printers.go's policy binding printers: namespace/name, "*/name"
// without a namespace, else the selector in its Go string form, else "<unset>".
func paramRef(r *admissionregistrationv1.ParamRef) string {
	switch {
	case r == nil:
		return "<unset>"
	case r.Name != "" && r.Namespace != "":
		return r.Namespace + "/" + r.Name
	case r.Name != "":
		return "*/" + r.Name
	case r.Selector != nil:
		return r.Selector.String()
	}
	return "<unset>"
}
