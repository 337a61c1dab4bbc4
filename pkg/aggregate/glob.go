package aggregate

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// globChars are the characters that make a resource name a shell-style pattern.
const globChars = "*?[\\"

// isGlob reports whether the resource name r is a pattern ("nvidia.com/*", "nvidia.com/mig-*").
func isGlob(r string) bool { return strings.ContainsAny(r, globChars) }

// checkGlob returns an error when pattern is not a well-formed shell-style pattern.
func checkGlob(pattern string) error {
	_, err := path.Match(pattern, "")
	return err
}

// MatchResources returns the names in names that pattern matches, shell-style on the whole
// resource name (path.Match: "*" does not cross "/"), sorted. A pattern without wildcards
// matches itself only when it is in names.
func MatchResources(pattern string, names map[corev1.ResourceName]bool) []corev1.ResourceName {
	var out []corev1.ResourceName
	for n := range names {
		if ok, _ := path.Match(pattern, string(n)); ok {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ExpandGlobs returns ms with each glob measure (requests.nvidia.com/*, see [ParseMeasure])
// replaced by one requests. or limits. measure per resource name it matches, sorted by name:
// names in requested for a requests. glob, in limited for a limits. glob. A name that ms
// already holds, or that an earlier glob expanded to, is not repeated. unmatched lists, in the
// order of ms, the globs that matched nothing: they add no column.
func ExpandGlobs(ms []Measure, requested, limited map[corev1.ResourceName]bool) (expanded []Measure, unmatched []string) {
	have := map[string]bool{}
	for _, m := range ms {
		if !m.glob {
			have[m.Name] = true
		}
	}
	for _, m := range ms {
		if !m.glob {
			expanded = append(expanded, m)
			continue
		}
		names, prefix := requested, requestsPrefix
		if m.kind == measureLimits {
			names, prefix = limited, limitsPrefix
		}
		matched := MatchResources(string(m.Resource), names)
		if len(matched) == 0 {
			unmatched = append(unmatched, m.Name)
		}
		for _, r := range matched {
			name := prefix + string(r)
			if have[name] {
				continue
			}
			have[name] = true
			expanded = append(expanded, Measure{Name: name, PodsOnly: true, Resource: r, kind: m.kind})
		}
	}
	return expanded, unmatched
}

// IsGlob reports whether m is a glob measure, which names no one resource: expand it with
// [ExpandGlobs] before reading values.
func (m Measure) IsGlob() bool { return m.glob }

// globError is the error of reading a glob measure that was not expanded.
func globError(m Measure) error {
	return fmt.Errorf("%s %s: a glob names no one resource; expand it against the resources found first", sumFlag, m.Name)
}

// CheckResourcePattern returns an error naming flag when s is neither a resource name
// ("nvidia.com/gpu") nor a well-formed shell-style pattern of resource names ("nvidia.com/mig-*").
func CheckResourcePattern(flag, s string) error {
	if isGlob(s) {
		if err := checkGlob(s); err != nil {
			return fmt.Errorf("%s %s: malformed glob: %w", flag, s, err)
		}
		return nil
	}
	if errs := validation.IsQualifiedName(s); len(errs) > 0 {
		return fmt.Errorf("%s %s: invalid resource name: %s", flag, s, strings.Join(errs, "; "))
	}
	return nil
}

// ExpandResources returns the resource names the patterns match among names ([MatchResources]),
// each once, in the order of patterns and sorted by name within a pattern. A pattern without
// wildcards stands for its own name whether or not names hold it. unmatched lists the globs that
// matched nothing.
func ExpandResources(patterns []string, names map[corev1.ResourceName]bool) (resources []corev1.ResourceName, unmatched []string) {
	have := map[corev1.ResourceName]bool{}
	for _, p := range patterns {
		matched := []corev1.ResourceName{corev1.ResourceName(p)}
		if isGlob(p) {
			matched = MatchResources(p, names)
			if len(matched) == 0 {
				unmatched = append(unmatched, p)
			}
		}
		for _, r := range matched {
			if !have[r] {
				have[r] = true
				resources = append(resources, r)
			}
		}
	}
	return resources, unmatched
}

// ResourceNames returns the names of the resources the pods of u request and limit.
func (u *AllocationByNode) ResourceNames() (requested, limited map[corev1.ResourceName]bool) {
	requested, limited = map[corev1.ResourceName]bool{}, map[corev1.ResourceName]bool{}
	for _, n := range u.Nodes {
		for r := range n.Requests {
			requested[r] = true
		}
		for r := range n.Limits {
			limited[r] = true
		}
	}
	return requested, limited
}

// AllocatableNames returns the names of the resources in the allocatable of nodes
// (status.capacity when allocatable is empty).
func AllocatableNames(nodes []*corev1.Node) map[corev1.ResourceName]bool {
	names := map[corev1.ResourceName]bool{}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		for r := range allocatable(n) {
			names[r] = true
		}
	}
	return names
}

// ExpandGlobsOver is [ExpandGlobs] against the resource names the pods
// among objs request and limit ([PodRequests], [PodLimits]; a
// *[PodAllocation]'s own lists); other objects are skipped. ms without
// globs is returned as it is.
func ExpandGlobsOver(ms []Measure, objs []interface{}) (expanded []Measure, unmatched []string) {
	if !slices.ContainsFunc(ms, Measure.IsGlob) {
		return ms, nil
	}
	requested, limited := map[corev1.ResourceName]bool{}, map[corev1.ResourceName]bool{}
	add := func(requests, limits corev1.ResourceList) {
		for r := range requests {
			requested[r] = true
		}
		for r := range limits {
			limited[r] = true
		}
	}
	for _, obj := range objs {
		if alloc, ok := index.Unwrap(obj).(*PodAllocation); ok && alloc != nil {
			add(alloc.Requests, alloc.Limits)
			continue
		}
		if pod, err := AsPod(obj); err == nil {
			add(PodRequests(pod), PodLimits(pod))
		}
	}
	return ExpandGlobs(ms, requested, limited)
}
