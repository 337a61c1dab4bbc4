package columns

import (
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

var namespaceTable = Table{
	Columns: columnsOf([]string{"Name", "Status", "Age"}),
	Row:     typedRow(namespaceRow),
}

// namespaceRow is printers.go's printNamespace.
func namespaceRow(ns *corev1.Namespace, now time.Time) []string {
	return []string{ns.Name, string(ns.Status.Phase), age(ns.CreationTimestamp, now)}
}

var configMapTable = Table{
	Columns: columnsOf([]string{"Name", "Data", "Age"}),
	Row:     typedRow(configMapRow),
}

// configMapRow is printers.go's printConfigMap: DATA counts data and binaryData keys.
func configMapRow(cm *corev1.ConfigMap, now time.Time) []string {
	return []string{cm.Name, strconv.Itoa(len(cm.Data) + len(cm.BinaryData)), age(cm.CreationTimestamp, now)}
}

var secretTable = Table{
	Columns: columnsOf([]string{"Name", "Type", "Data", "Age"}),
	Row:     typedRow(secretRow),
}

// secretRow is printers.go's printSecret: DATA counts the keys of data, to which the conversion to
// the internal type adds those of stringData. (A stored secret has no stringData: the API server
// folds it into data on write.)
func secretRow(s *corev1.Secret, now time.Time) []string {
	keys := len(s.Data)
	for k := range s.StringData {
		if _, ok := s.Data[k]; !ok {
			keys++
		}
	}
	return []string{s.Name, string(s.Type), strconv.Itoa(keys), age(s.CreationTimestamp, now)}
}

var serviceAccountTable = Table{
	Columns: columnsOf([]string{"Name", "Age"}),
	Row: typedRow(func(sa *corev1.ServiceAccount, now time.Time) []string {
		return []string{sa.Name, age(sa.CreationTimestamp, now)}
	}),
}
