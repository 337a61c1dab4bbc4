// Package protocol is the wire protocol between kubectl-informer commands
// and a warm cache process (pkg/warmcache/server, pkg/warmcache/client) over a unix
// socket: length-prefixed frames, a hello that carries the protocol version,
// and the JSON messages each frame type holds.
//
// A connection goes: each end checks that the other runs as its own OS user
// (peer credentials) before a byte crosses; the server sends Hello; the
// client checks its Version (and its Build and BuildID) and sends one
// Request; the server answers a Collect request (a query's answer as data,
// see Collect) and a Stream request (a type's objects and changes as data,
// see Stream) with Stdout and Stderr frames and ends with Exit or
// Fallback, a Status request with one Status frame, a Stop request with
// Exit. The client prints: no request says how. No credential ever crosses
// the socket: a Request holds the question only, never kubeconfig, token,
// certificate or impersonation flags.
package protocol
