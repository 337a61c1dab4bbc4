// Package protoskip decodes Kubernetes protobuf objects partially: it drops
// from the wire bytes the fields a command never reads before client-go's
// generated Unmarshal sees them, so the cost of decoding is that of the kept
// fields only.
//
// What a command reads is a list of field paths in the objects' JSON names
// ("spec.nodeName", "status", "spec.containers.image"; a path goes through a
// list into each of its elements). A [Plan] compiled from them keeps, of every
// top-level object, its metadata without metadata.managedFields, and each
// path; a list keeps its own metadata and the kept part of each item. Field
// numbers come from the Go types' protobuf struct tags, so one plan serves
// every built-in type. A path that a type cannot follow (a field the type
// lacks, a map, an inline field) keeps the whole field where it stops: a plan
// may keep more than the paths, never less.
//
// The [Serializer] wraps the protobuf serializer of a client: it rewrites the
// k8s envelope with the object's bytes filtered, and hands the result to the
// wrapped serializer, so everything else (kinds, defaults, errors) is the
// wrapped serializer's own. Bytes the filter cannot walk are handed over
// whole: malformed input fails exactly as it would without the filter.
package protoskip
