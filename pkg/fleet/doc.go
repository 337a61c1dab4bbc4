// Package fleet runs one question against several kubeconfig contexts at
// once and merges the answers: which contexts a --context / --all-contexts
// selection names (select.go), running a function per context in parallel
// with a hard deadline each, so that no context can hang the command, and
// collecting each context's failure (run.go), and merging grouped tables
// whose counts and sums add up across contexts (merge.go).
//
// A context is an identity of its own: its server, credentials,
// impersonation and default namespace come from the kubeconfig; this
// package only names contexts and never reads a cluster itself.
package fleet
