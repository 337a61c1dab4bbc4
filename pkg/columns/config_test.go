package columns

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestNamespaceRow(t *testing.T) {
	runRows(t, schema.GroupResource{Resource: "namespaces"}, []rowCase{
		{
			// STATUS is status.phase.
			name: "active",
			obj:  &corev1.Namespace{ObjectMeta: objMeta("prod"), Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
			want: []string{"prod", "Active", "5m"},
		},
		{
			name: "terminating",
			obj:  &corev1.Namespace{ObjectMeta: objMeta("old"), Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
			want: []string{"old", "Terminating", "5m"},
		},
	})
}

func TestConfigMapRow(t *testing.T) {
	runRows(t, schema.GroupResource{Resource: "configmaps"}, []rowCase{
		{
			// DATA is len(data)+len(binaryData).
			name: "data and binary data",
			obj: &corev1.ConfigMap{ObjectMeta: objMeta("settings"),
				Data: map[string]string{"a": "1", "b": "2"}, BinaryData: map[string][]byte{"c": {0}}},
			want: []string{"settings", "3", "5m"},
		},
		{
			name: "empty",
			obj:  &corev1.ConfigMap{ObjectMeta: objMeta("empty")},
			want: []string{"empty", "0", "5m"},
		},
	})
}

func TestSecretRow(t *testing.T) {
	runRows(t, schema.GroupResource{Resource: "secrets"}, []rowCase{
		{
			// TYPE is the type; DATA is len(data).
			name: "tls",
			obj: &corev1.Secret{ObjectMeta: objMeta("cert"), Type: corev1.SecretTypeTLS,
				Data: map[string][]byte{"tls.crt": {1}, "tls.key": {2}}},
			want: []string{"cert", "kubernetes.io/tls", "2", "5m"},
		},
		{
			// The conversion to the internal type merges stringData into data.
			name: "string data",
			obj: &corev1.Secret{ObjectMeta: objMeta("token"), Type: corev1.SecretTypeOpaque,
				Data: map[string][]byte{"a": {1}}, StringData: map[string]string{"a": "x", "b": "y"}},
			want: []string{"token", "Opaque", "2", "5m"},
		},
	})
}

func TestServiceAccountRow(t *testing.T) {
	// printers.go prints NAME and AGE only: no SECRETS column any more.
	runRows(t, schema.GroupResource{Resource: "serviceaccounts"}, []rowCase{
		{name: "default", obj: &corev1.ServiceAccount{ObjectMeta: objMeta("default"),
			Secrets: []corev1.ObjectReference{{Name: "token"}}}, want: []string{"default", "5m"}},
	})
}
