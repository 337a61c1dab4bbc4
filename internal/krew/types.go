// Package krew reads, renders, validates and installs krew plugin manifests
// (kind Plugin, apiVersion krew.googlecontainertools.github.com/v1alpha2)
// without importing krew. hack/krew-manifest renders the release template
// .krew.yaml with it, and test/install installs a release archive with it the
// way `kubectl krew install --manifest=… --archive=…` does, offline.
//
// The types mirror krew's pkg/index types as far as this project's manifest
// uses them; a manifest with fields they lack fails to parse rather than
// being half read.
package krew

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// APIVersion and Kind are the only apiVersion and kind krew accepts for a
// plugin manifest.
const (
	APIVersion = "krew.googlecontainertools.github.com/v1alpha2"
	Kind       = "Plugin"
)

// Plugin is a krew plugin manifest.
type Plugin struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   Metadata   `json:"metadata"`
	Spec       PluginSpec `json:"spec"`
}

// Metadata is the part of a manifest's metadata krew reads: the plugin name,
// which is what users type after `kubectl krew install` and after `kubectl`.
type Metadata struct {
	Name string `json:"name"`
}

// PluginSpec describes one version of a plugin and how to install it on each
// platform.
type PluginSpec struct {
	// Version is a semantic version with a leading "v", e.g. v0.3.1.
	Version          string `json:"version"`
	Homepage         string `json:"homepage,omitempty"`
	ShortDescription string `json:"shortDescription"`
	Description      string `json:"description,omitempty"`
	Caveats          string `json:"caveats,omitempty"`
	// Platforms are tried in order; krew installs the first whose selector
	// matches the host's os and arch.
	Platforms []Platform `json:"platforms"`
}

// Platform says where the archive for some os/arch pair is, its checksum,
// which of its files to install, and which installed file is the plugin's
// executable.
type Platform struct {
	Selector *Selector       `json:"selector,omitempty"`
	URI      string          `json:"uri"`
	Sha256   string          `json:"sha256"`
	Files    []FileOperation `json:"files"`
	// Bin is the executable's path relative to the installation directory;
	// krew links it as <root>/bin/kubectl-<name>.
	Bin string `json:"bin"`
	// License is the license file's path in the installation directory.
	License string `json:"license,omitempty"`
}

// Selector selects platforms by the labels "os" and "arch" (GOOS and GOARCH
// values), as a Kubernetes label selector does: every match label and every
// expression must hold.
type Selector struct {
	MatchLabels      map[string]string     `json:"matchLabels,omitempty"`
	MatchExpressions []SelectorRequirement `json:"matchExpressions,omitempty"`
}

// SelectorRequirement is one expression of a Selector. Operator is In, NotIn,
// Exists or DoesNotExist.
type SelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// FileOperation copies files from the unpacked archive into the installation
// directory. From is a path or a glob relative to the archive's root; To is
// relative to the installation directory. When From names one file (or
// directory) of the archive, To is its new path, "." keeping its name; when
// From is a glob, To is the directory every match goes into.
type FileOperation struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Matches reports whether s selects the platform whose labels are set, as
// metav1.LabelSelectorAsSelector reads s; a selector that does not convert
// (an unknown operator, In without values) matches nothing. A nil Selector
// matches nothing, as krew treats it as invalid.
func (s *Selector) Matches(set map[string]string) bool {
	if s == nil {
		return false
	}
	ls := &metav1.LabelSelector{MatchLabels: s.MatchLabels}
	for _, req := range s.MatchExpressions {
		ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{
			Key:      req.Key,
			Operator: metav1.LabelSelectorOperator(req.Operator),
			Values:   req.Values,
		})
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(set))
}

// String returns the selector in label-selector syntax with its terms
// sorted, e.g. "arch=amd64,os=linux"; equal selectors have equal strings.
func (s *Selector) String() string {
	if s == nil {
		return "<nil>"
	}
	var terms []string
	for k, v := range s.MatchLabels {
		terms = append(terms, k+"="+v)
	}
	for _, req := range s.MatchExpressions {
		values := append([]string(nil), req.Values...)
		sort.Strings(values)
		switch req.Operator {
		case "Exists":
			terms = append(terms, req.Key)
		case "DoesNotExist":
			terms = append(terms, "!"+req.Key)
		default:
			terms = append(terms, fmt.Sprintf("%s %s (%s)", req.Key, strings.ToLower(req.Operator), strings.Join(values, ",")))
		}
	}
	sort.Strings(terms)
	return strings.Join(terms, ",")
}

// PlatformFor returns the first platform of p whose selector matches the
// labels os=goos and arch=goarch, as krew chooses what to install.
func (p Plugin) PlatformFor(goos, goarch string) (Platform, bool) {
	labels := map[string]string{"os": goos, "arch": goarch}
	for _, pl := range p.Spec.Platforms {
		if pl.Selector.Matches(labels) {
			return pl, true
		}
	}
	return Platform{}, false
}
