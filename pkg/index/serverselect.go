package index

import (
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
)

// Server-side field labels of the built-in indexes an API server can select on: the generic
// metadata.namespace of every namespaced type, and the pod fields of ToSelectableFields in
// k8s.io/kubernetes/pkg/registry/core/pod/strategy.go.
const (
	metadataNamespaceField = "metadata.namespace"
	podNodeField           = "spec.nodeName"
	podPhaseField          = "status.phase"
)

// ServerSelectors are a label selector and a field selector in the syntax of
// metav1.ListOptions, for an API server to apply to a list and a watch. Either may be empty.
type ServerSelectors struct {
	Label string
	Field string
}

// ServerSelection returns label and field selectors with which an API server selects, among the
// objects of resource, exactly the objects that the selectors it could express select, and those
// selectors (expressed); the others are not expressed and must be applied by the caller, as
// [Keys] does. Every selector is ANDed, on the server as in [Keys]. namespaceField says whether
// the server selects the objects of resource by metadata.namespace: kube-apiserver does for its
// namespaced types; cluster-scoped objects have no namespace, and an aggregated API server need
// not support the field.
//
// What is expressed, with the operators that keep the index's meaning:
//   - label:KEY, every operator, for every type: the server's label selector has the same
//     meaning (!= and notin select objects without the label, exists those that carry it, even
//     with an empty value). Values that are not valid label values are not expressed.
//   - namespace, with namespaceField: = and != a non-empty value, in with one value, and notin
//     (as one != per value). Field selectors have no "in": namespace in (a,b) is not expressed.
//   - node on core pods: spec.nodeName with = (an empty value selects unscheduled pods, which the
//     index gives the value ""), !=, in with one value and notin. A pod always has exactly one
//     node value, so exists selects every pod and !node none: neither is expressed.
//   - phase on core pods: status.phase with = and != a non-empty value, in with one value and
//     notin without the empty value; exists as status.phase!= and !phase as status.phase=, since
//     the index gives an empty phase no value.
//
// Nothing else is expressed: annotations, owners, images, relationship and custom indexes, and
// node or phase on other types, which the server cannot select. Field values are escaped
// (fields.EscapeValue), so a value with ',' or '=' is expressed; every selector's expression is
// parsed back before it is kept.
//
// The meanings hold for objects as typed and dynamic informers hold them; a
// metav1.PartialObjectMetadata has no node or phase value, so callers must not express node or
// phase selectors for metadata-only informers.
func ServerSelection(resource schema.GroupResource, namespaceField bool, selectors []Selector) (ServerSelectors, []Selector) {
	var (
		labelSelector = labels.NewSelector()
		fieldSelector []fields.Selector
		expressed     []Selector
	)
	for _, sel := range selectors {
		if key, ok := strings.CutPrefix(sel.Name, labelPrefix); ok {
			req, ok := labelRequirement(key, sel)
			if !ok {
				continue
			}
			labelSelector = labelSelector.Add(req)
			expressed = append(expressed, sel)
			continue
		}
		var terms []fields.Selector
		switch {
		case sel.Name == namespaceIndexName && namespaceField:
			terms = fieldTerms(metadataNamespaceField, sel, false)
		case sel.Name == nodeIndexName && isCorePods(resource):
			terms = fieldTerms(podNodeField, sel, true)
		case sel.Name == phaseIndexName && isCorePods(resource):
			terms = phaseTerms(sel)
		}
		if len(terms) == 0 {
			continue
		}
		fieldSelector = append(fieldSelector, terms...)
		expressed = append(expressed, sel)
	}
	var out ServerSelectors
	if !labelSelector.Empty() {
		out.Label = labelSelector.String()
	}
	if len(fieldSelector) > 0 {
		out.Field = fields.AndSelectors(fieldSelector...).String()
	}
	return out, expressed
}

// isCorePods reports whether resource is core v1's pods.
func isCorePods(resource schema.GroupResource) bool {
	return resource.Group == "" && resource.Resource == "pods"
}

// labelOperators maps the operators of a label:KEY selector to those of label selectors.
var labelOperators = map[Operator]selection.Operator{
	Equals:       selection.Equals,
	NotEquals:    selection.NotEquals,
	In:           selection.In,
	NotIn:        selection.NotIn,
	Exists:       selection.Exists,
	DoesNotExist: selection.DoesNotExist,
}

// labelRequirement expresses sel, a selector of the index label:KEY, as a label requirement on
// key; ok is false when a value is not a valid label value or the requirement does not parse back.
func labelRequirement(key string, sel Selector) (labels.Requirement, bool) {
	op, ok := labelOperators[sel.Operator]
	if !ok {
		return labels.Requirement{}, false
	}
	req, err := labels.NewRequirement(key, op, sel.Values)
	if err != nil {
		return labels.Requirement{}, false
	}
	parsed, err := labels.Parse(req.String())
	if err != nil {
		return labels.Requirement{}, false
	}
	reqs, _ := parsed.Requirements()
	if len(reqs) != 1 || !reqs[0].Equal(*req) {
		return labels.Requirement{}, false
	}
	return *req, true
}

// fieldTerms expresses sel on field, whose value is an object's one indexed value: = and in with
// one value as field=value, != and notin as one field!=value per value. The empty value is
// expressed only when emptyIsValue, that is when the index gives objects whose field is empty
// the value "" (the node of a pod) rather than no value.
func fieldTerms(field string, sel Selector, emptyIsValue bool) []fields.Selector {
	if !emptyIsValue {
		for _, v := range sel.Values {
			if v == "" {
				return nil
			}
		}
	}
	var terms []fields.Selector
	switch sel.Operator {
	case Equals, In:
		if len(sel.Values) != 1 {
			return nil
		}
		terms = []fields.Selector{fields.OneTermEqualSelector(field, sel.Values[0])}
	case NotEquals, NotIn:
		if len(sel.Values) == 0 {
			return nil
		}
		for _, v := range sel.Values {
			terms = append(terms, fields.OneTermNotEqualSelector(field, v))
		}
	default:
		return nil
	}
	return parsedBack(terms)
}

// phaseTerms expresses a phase selector on status.phase, where the index gives an empty phase no
// value: exists is status.phase!= and !phase is status.phase=.
func phaseTerms(sel Selector) []fields.Selector {
	switch sel.Operator {
	case Exists:
		return []fields.Selector{fields.OneTermNotEqualSelector(podPhaseField, "")}
	case DoesNotExist:
		return []fields.Selector{fields.OneTermEqualSelector(podPhaseField, "")}
	}
	return fieldTerms(podPhaseField, sel, false)
}

// parsedBack returns terms if their field selector parses back to the same requirements, nil
// otherwise.
func parsedBack(terms []fields.Selector) []fields.Selector {
	want := fields.AndSelectors(terms...).Requirements()
	parsed, err := fields.ParseSelector(fields.AndSelectors(terms...).String())
	if err != nil {
		return nil
	}
	got := parsed.Requirements()
	if len(got) != len(want) {
		return nil
	}
	// ParseSelector sorts the terms by their text; compare as sets.
	for _, w := range want {
		found := false
		for _, g := range got {
			if g == w {
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	return terms
}
