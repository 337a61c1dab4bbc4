package offline

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// selectableFields says which field selectors the API server supports for
// a kind, and the values an object has for them. It follows the field
// label conversions of each version the API server serves
// (k8s.io/kubernetes pkg/apis/*/v1/conversion.go, which also word the
// refusal) and the registry's selectable field sets
// (pkg/registry/*/strategy.go, ToSelectableFields).
type selectableFields struct {
	// labels maps each supported label to the field it selects (most to
	// themselves; events.k8s.io's regarding.kind to involvedObject.kind).
	labels map[string]string
	// values returns an object's value for each field beside
	// metadata.name and metadata.namespace.
	values func(obj map[string]interface{}) fields.Set
}

// metaLabels are the fields every type supports.
var metaLabels = map[string]string{"metadata.name": "metadata.name", "metadata.namespace": "metadata.namespace"}

func labelsOf(names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = n
	}
	return m
}

// fieldsByKind are the kinds with field selectors beyond metadata.name and
// metadata.namespace.
var fieldsByKind = map[schema.GroupKind]selectableFields{
	{Kind: "Pod"}: {
		labels: func() map[string]string {
			m := labelsOf("metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
				"spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName")
			m["spec.host"] = "spec.nodeName"
			return m
		}(),
		values: func(o map[string]interface{}) fields.Set {
			podIP := ""
			if ips, _, _ := unstructured.NestedSlice(o, "status", "podIPs"); len(ips) > 0 {
				if m, ok := ips[0].(map[string]interface{}); ok {
					podIP, _ = m["ip"].(string)
				}
			}
			if podIP == "" {
				// An object written before podIPs: the API server's
				// conversion fills podIPs from podIP.
				podIP = str(o, "status", "podIP")
			}
			hostNetwork, _, _ := unstructured.NestedBool(o, "spec", "hostNetwork")
			return fields.Set{
				"spec.nodeName":            str(o, "spec", "nodeName"),
				"spec.restartPolicy":       str(o, "spec", "restartPolicy"),
				"spec.schedulerName":       str(o, "spec", "schedulerName"),
				"spec.serviceAccountName":  str(o, "spec", "serviceAccountName"),
				"spec.hostNetwork":         strconv.FormatBool(hostNetwork),
				"status.phase":             str(o, "status", "phase"),
				"status.podIP":             podIP,
				"status.nominatedNodeName": str(o, "status", "nominatedNodeName"),
			}
		},
	},
	{Kind: "Node"}: {
		labels: labelsOf("metadata.name", "spec.unschedulable"),
		values: func(o map[string]interface{}) fields.Set {
			u, _, _ := unstructured.NestedBool(o, "spec", "unschedulable")
			return fields.Set{"spec.unschedulable": strconv.FormatBool(u)}
		},
	},
	{Kind: "ReplicationController"}: {
		labels: labelsOf("metadata.name", "metadata.namespace", "status.replicas"),
		values: func(o map[string]interface{}) fields.Set {
			return fields.Set{"status.replicas": integer(o, "status", "replicas")}
		},
	},
	{Kind: "Event"}: {
		labels: labelsOf("involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
			"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
			"reportingComponent", "source", "type", "metadata.namespace", "metadata.name"),
		values: coreEventFields,
	},
	{Group: "events.k8s.io", Kind: "Event"}: {
		labels: map[string]string{
			"reason": "reason", "regarding.kind": "involvedObject.kind", "regarding.namespace": "involvedObject.namespace",
			"regarding.name": "involvedObject.name", "regarding.uid": "involvedObject.uid",
			"regarding.apiVersion": "involvedObject.apiVersion", "regarding.resourceVersion": "involvedObject.resourceVersion",
			"regarding.fieldPath": "involvedObject.fieldPath", "reportingController": "reportingComponent", "type": "type",
			"metadata.namespace": "metadata.namespace", "metadata.name": "metadata.name",
		},
		values: func(o map[string]interface{}) fields.Set {
			source := str(o, "deprecatedSource", "component")
			if source == "" {
				source = str(o, "reportingController")
			}
			return fields.Set{
				"involvedObject.kind":            str(o, "regarding", "kind"),
				"involvedObject.namespace":       str(o, "regarding", "namespace"),
				"involvedObject.name":            str(o, "regarding", "name"),
				"involvedObject.uid":             str(o, "regarding", "uid"),
				"involvedObject.apiVersion":      str(o, "regarding", "apiVersion"),
				"involvedObject.resourceVersion": str(o, "regarding", "resourceVersion"),
				"involvedObject.fieldPath":       str(o, "regarding", "fieldPath"),
				"reason":                         str(o, "reason"),
				"reportingComponent":             str(o, "reportingController"),
				"source":                         source,
				"type":                           str(o, "type"),
			}
		},
	},
	{Kind: "Namespace"}: {
		labels: labelsOf("metadata.name", "status.phase"),
		values: func(o map[string]interface{}) fields.Set {
			return fields.Set{"status.phase": str(o, "status", "phase")}
		},
	},
	{Kind: "Secret"}: {
		labels: labelsOf("metadata.name", "metadata.namespace", "type"),
		values: func(o map[string]interface{}) fields.Set { return fields.Set{"type": str(o, "type")} },
	},
	{Kind: "Service"}: {
		labels: labelsOf("metadata.name", "metadata.namespace", "spec.clusterIP", "spec.type"),
		values: func(o map[string]interface{}) fields.Set {
			return fields.Set{"spec.clusterIP": str(o, "spec", "clusterIP"), "spec.type": str(o, "spec", "type")}
		},
	},
	{Group: "batch", Kind: "Job"}: {
		labels: labelsOf("metadata.name", "metadata.namespace", "status.successful"),
		values: func(o map[string]interface{}) fields.Set {
			return fields.Set{"status.successful": integer(o, "status", "succeeded")}
		},
	},
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}: {
		labels: labelsOf("metadata.name", "spec.signerName"),
		values: func(o map[string]interface{}) fields.Set {
			return fields.Set{"spec.signerName": str(o, "spec", "signerName")}
		},
	},
	{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"}: {
		labels: labelsOf("metadata.name", "spec.signerName", "spec.podName", "spec.nodeName"),
		values: func(o map[string]interface{}) fields.Set {
			return fields.Set{"spec.signerName": str(o, "spec", "signerName"), "spec.podName": str(o, "spec", "podName"), "spec.nodeName": str(o, "spec", "nodeName")}
		},
	},
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}: {
		labels: labelsOf("metadata.name", "spec.nodeName", "spec.driver", "spec.pool.name"),
		values: func(o map[string]interface{}) fields.Set {
			return fields.Set{"spec.nodeName": str(o, "spec", "nodeName"), "spec.driver": str(o, "spec", "driver"), "spec.pool.name": str(o, "spec", "pool", "name")}
		},
	},
}

func coreEventFields(o map[string]interface{}) fields.Set {
	source := str(o, "source", "component")
	if source == "" {
		source = str(o, "reportingComponent")
	}
	return fields.Set{
		"involvedObject.kind":            str(o, "involvedObject", "kind"),
		"involvedObject.namespace":       str(o, "involvedObject", "namespace"),
		"involvedObject.name":            str(o, "involvedObject", "name"),
		"involvedObject.uid":             str(o, "involvedObject", "uid"),
		"involvedObject.apiVersion":      str(o, "involvedObject", "apiVersion"),
		"involvedObject.resourceVersion": str(o, "involvedObject", "resourceVersion"),
		"involvedObject.fieldPath":       str(o, "involvedObject", "fieldPath"),
		"reason":                         str(o, "reason"),
		"reportingComponent":             str(o, "reportingComponent"),
		"source":                         source,
		"type":                           str(o, "type"),
	}
}

func str(o map[string]interface{}, path ...string) string {
	s, _, _ := unstructured.NestedString(o, path...)
	return s
}

func integer(o map[string]interface{}, path ...string) string {
	v, _, _ := unstructured.NestedFieldNoCopy(o, path...)
	switch n := v.(type) {
	case int64:
		return strconv.FormatInt(n, 10)
	case float64:
		return strconv.Itoa(int(n))
	}
	return "0"
}

// fieldSet returns obj's selectable fields: metadata.name,
// metadata.namespace (for a namespaced kind) and those of its kind.
func fieldSet(gk schema.GroupKind, obj *unstructured.Unstructured) fields.Set {
	set := fields.Set{"metadata.name": obj.GetName()}
	if ns := obj.GetNamespace(); ns != "" {
		set["metadata.namespace"] = ns
	}
	if sf, ok := fieldsByKind[gk]; ok {
		for k, v := range sf.values(obj.Object) {
			set[k] = v
		}
	}
	return set
}

// typedFieldSet returns the selectable fields of a typed object of a kind
// whose fields it reads from the Go type (pods and nodes, which a dump
// holds many of and field selectors select most often), as fieldSet
// would from the object's JSON-like content, without making that content;
// false for other objects.
func typedFieldSet(obj runtime.Object, name, ns string) (fields.Set, bool) {
	switch o := obj.(type) {
	case *corev1.Pod:
		podIP := ""
		if len(o.Status.PodIPs) > 0 {
			podIP = o.Status.PodIPs[0].IP
		}
		if podIP == "" {
			podIP = o.Status.PodIP
		}
		set := fields.Set{
			"metadata.name":            name,
			"spec.nodeName":            o.Spec.NodeName,
			"spec.restartPolicy":       string(o.Spec.RestartPolicy),
			"spec.schedulerName":       o.Spec.SchedulerName,
			"spec.serviceAccountName":  o.Spec.ServiceAccountName,
			"spec.hostNetwork":         strconv.FormatBool(o.Spec.HostNetwork),
			"status.phase":             string(o.Status.Phase),
			"status.podIP":             podIP,
			"status.nominatedNodeName": o.Status.NominatedNodeName,
		}
		if ns != "" {
			set["metadata.namespace"] = ns
		}
		return set, true
	case *corev1.Node:
		return fields.Set{"metadata.name": name, "spec.unschedulable": strconv.FormatBool(o.Spec.Unschedulable)}, true
	}
	return nil, false
}

// parseFieldSelector parses selector for gk, mapping each label to the
// field it selects, and refuses labels the API server does not support
// for gk with its words.
func parseFieldSelector(gk schema.GroupKind, selector string) (fields.Selector, error) {
	if selector == "" {
		return fields.Everything(), nil
	}
	parsed, err := fields.ParseSelector(selector)
	if err != nil {
		return nil, err
	}
	supported := metaLabels
	sf, custom := fieldsByKind[gk]
	if custom {
		supported = sf.labels
	}
	return parsed.Transform(func(label, value string) (string, string, error) {
		field, ok := supported[label]
		switch {
		case ok:
			return field, value, nil
		case custom:
			return "", "", fmt.Errorf("field label not supported: %s", label)
		default:
			return "", "", fmt.Errorf("%q is not a known field selector: only %q, %q", label, "metadata.name", "metadata.namespace")
		}
	})
}
