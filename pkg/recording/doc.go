// Package recording owns the plugin's recording file: a header that says
// what was recorded, then the state at the start and every watch event
// after it, each with the time it was seen.
//
// # Format
//
// A recording is one gzip stream of newline-delimited JSON records. The
// first record is the header (Header, with "format" set to
// "kubectl-informer-recording" and a version). Each further record is one
// event:
//
//	{"t":TIME,"e":"A"|"M"|"D","i":true,"k":[TYPE,NAMESPACE,NAME,UID],"o":OBJECT}
//	{"t":TIME,"e":"M","k":[...],"p":MERGE_PATCH}
//	{"t":TIME,"e":"D","k":[...]}
//
// TYPE is an index into the header's types. An object (a key: type,
// namespace, name and uid, so that an object recreated under the same name
// is another object) is stored whole ("o") the first time it is seen, and
// after that as a JSON merge patch (RFC 7386, "p") against its previous
// recorded state whenever the patch reproduces the object exactly and is
// smaller than it. A delete stores only the key when the object's last
// state equals its previous recorded one, and a patch otherwise.
//
// The writer flushes the compressor with a sync flush at each Flush, so a
// file cut short (a crash, a full disk) holds every event up to the last
// Flush; the reader returns the events up to the last complete record and
// says the file was truncated.
//
// # Untrusted input
//
// A recording may come from anyone. The reader bounds every record and
// every reconstructed object to MaxRecordSize, checks each record's shape
// and keys, and fails with an error naming the file and the record number
// (the header is record 1).
package recording
