package manifest

import (
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// layout is a dump whose paths name the type of each file: a must-gather
// (`oc adm must-gather`, `oc adm inspect`) or `kubectl cluster-info dump
// --output-directory`.
type layout int

const (
	noLayout layout = iota
	mustGather
	clusterInfoDump
)

// crdResource is the resource of custom resource definitions.
var crdResource = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}

// dumpRoot says which layout the directory dir, whose entries are
// entries, is the root of. A must-gather's root holds a namespaces or a
// cluster-scoped-resources folder, and the other or a timestamp file; a
// cluster-info dump's holds nodes.json (or .yaml) and a namespace folder
// with pods or events in the same format.
func dumpRoot(dir string, entries []os.DirEntry) layout {
	has := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		has[name] = true
	}
	if (has["namespaces/"] || has["cluster-scoped-resources/"]) &&
		(has["timestamp"] || has["namespaces/"] && has["cluster-scoped-resources/"]) {
		return mustGather
	}
	for _, ext := range []string{".json", ".yaml"} {
		if !has["nodes"+ext] {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			for _, f := range []string{"pods", "events"} {
				if info, err := os.Stat(filepath.Join(dir, e.Name(), f+ext)); err == nil && info.Mode().IsRegular() {
					return clusterInfoDump
				}
			}
		}
	}
	return noLayout
}

// clusterInfoFiles are the files `kubectl cluster-info dump` writes in each
// namespace's folder, by name without extension.
var clusterInfoFiles = map[string]schema.GroupResource{
	"events":                  {Resource: "events"},
	"replication-controllers": {Resource: "replicationcontrollers"},
	"services":                {Resource: "services"},
	"daemonsets":              {Group: "apps", Resource: "daemonsets"},
	"deployments":             {Group: "apps", Resource: "deployments"},
	"replicasets":             {Group: "apps", Resource: "replicasets"},
	"pods":                    {Resource: "pods"},
}

// layoutResource returns the resource whose objects the file at rel, a
// slash-separated path below the root of a dump of layout l, holds by
// that layout; ok is false for a file the layout does not name (it is
// scanned for its kinds instead).
//
// must-gather: namespaces/NS/NS.yaml (the Namespace),
// namespaces/NS/GROUP/RESOURCE.yaml, namespaces/NS/GROUP/RESOURCE/NAME.yaml,
// namespaces/NS/pods/POD/POD.yaml, cluster-scoped-resources/GROUP/RESOURCE.yaml
// and cluster-scoped-resources/GROUP/RESOURCE/NAME.yaml, GROUP "core" for the
// core group. cluster-info dump: nodes.EXT, NS/RESOURCE.EXT.
func layoutResource(l layout, rel string) (gr schema.GroupResource, ok bool) {
	parts := strings.Split(rel, "/")
	last := parts[len(parts)-1]
	ext := filepath.Ext(last)
	base := strings.TrimSuffix(last, ext)
	group := func(g string) string {
		if g == "core" {
			return ""
		}
		return g
	}
	switch l {
	case mustGather:
		if ext != ".yaml" && ext != ".yml" && ext != ".json" {
			return gr, false
		}
		switch {
		case len(parts) == 3 && parts[0] == "namespaces" && base == parts[1]:
			return schema.GroupResource{Resource: "namespaces"}, true
		case len(parts) == 5 && parts[0] == "namespaces" && parts[2] == "pods" && base == parts[3]:
			return schema.GroupResource{Resource: "pods"}, true
		case len(parts) == 4 && parts[0] == "namespaces" && parts[2] != "pods":
			return schema.GroupResource{Group: group(parts[2]), Resource: base}, true
		case len(parts) == 5 && parts[0] == "namespaces" && parts[2] != "pods":
			return schema.GroupResource{Group: group(parts[2]), Resource: parts[3]}, true
		case len(parts) == 3 && parts[0] == "cluster-scoped-resources":
			return schema.GroupResource{Group: group(parts[1]), Resource: base}, true
		case len(parts) == 4 && parts[0] == "cluster-scoped-resources":
			return schema.GroupResource{Group: group(parts[1]), Resource: parts[2]}, true
		}
	case clusterInfoDump:
		if ext != ".json" && ext != ".yaml" {
			return gr, false
		}
		if len(parts) == 1 && base == "nodes" {
			return schema.GroupResource{Resource: "nodes"}, true
		}
		if len(parts) == 2 {
			gr, ok = clusterInfoFiles[base]
			return gr, ok
		}
	}
	return gr, false
}

// crdFileResource returns the resource a CRD file of a must-gather defines,
// from its name: a CRD is named PLURAL.GROUP.
func crdFileResource(path string) (schema.GroupResource, bool) {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	plural, group, ok := strings.Cut(name, ".")
	if !ok || plural == "" || group == "" {
		return schema.GroupResource{}, false
	}
	return schema.GroupResource{Group: group, Resource: plural}, true
}

// singleObjectFile reports whether the layout names the file at rel for
// one object: a must-gather's namespaces/NS/pods/POD/POD.yaml,
// namespaces/NS/GROUP/RESOURCE/NAME.yaml and
// cluster-scoped-resources/GROUP/RESOURCE/NAME.yaml.
func singleObjectFile(l layout, rel string) bool {
	parts := strings.Split(rel, "/")
	return l == mustGather && (len(parts) == 5 && parts[0] == "namespaces" || len(parts) == 4 && parts[0] == "cluster-scoped-resources")
}
