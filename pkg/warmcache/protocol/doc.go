// Package protocol is the wire protocol between kubectl-informer commands
// and a warm cache process (pkg/warmcache/server, pkg/warmcache/client) over a unix
// socket: length-prefixed frames, a hello that carries the protocol version,
// and the JSON messages each frame type holds.
//
// A connection goes: each end checks that the other runs as its own OS user
// (peer credentials) before a byte crosses; the server sends Hello; the
// client checks its Version (and, for a Run, its Build and BuildID) and
// sends one Request; the server answers a Run request with Stdout and
// Stderr frames and ends with Exit or Fallback, a Collect request (a
// query's answer as data, see Collect) likewise, a Status request with one
// Status frame, a Stop request with Exit. No credential ever crosses the
// socket: a Request holds command arguments only, never kubeconfig, token,
// certificate or impersonation flags.
package protocol
