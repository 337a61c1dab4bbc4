// Package fieldmanagers tells who changed an object, from the field ownership the
// API server records in metadata.managedFields.
//
// Every managedFields entry names a field manager, the operation (Apply or
// Update) and subresource it wrote through, a time with one-second
// resolution, and a fieldsV1 set of the fields it owns, in the format of
// sigs.k8s.io/structured-merge-diff: "f:name" for a map key, "k:{...}" for a
// list element identified by its key fields, "v:..." for a set element by
// its value, "i:N" for an element by index, and "." for the node itself.
//
// Authors attributes an update to the entries of the new object whose sets own
// the changed paths: a changed path is owned by the entries that hold it or,
// when none does, by those that hold its nearest ancestor whole (a leaf of
// their set, as an atomic map or list is held). When several entries own a changed path, those whose time moved in
// the update are kept, if any did: the time only breaks ties. A changed path
// no entry holds, nor any ancestor of it, has no owner, and Authors invents
// none. Cause names the few changes the server records no owner for but
// which are certain from the change itself.
//
// The package is pure: it does no I/O, never mutates what it is given, and is
// safe for concurrent use.
package fieldmanagers
