// Package mcp is kubectl informer's Model Context Protocol server: the
// tools an agent calls (query, capacity, tree, events, wait, contexts,
// types, indexers), answered from warm shared informers held in this
// process, one pool per kubeconfig context, built the first time a tool
// asks about that context, or by the warm cache process (cache start) of a
// context's identity where one runs. The tree tool lists the roots and the
// types it follows down for each call.
//
// Contracts every tool keeps:
//   - Initialize and tools/list never touch a cluster; a context's clients,
//     discovery and informers are built by the first call that names it.
//   - Every tool takes a context argument (a name, names joined by commas,
//     a shell-style pattern, or "all"; empty is the kubeconfig's current
//     context). Each selected context answers on its own, in parallel; a
//     context that fails is an error entry beside the others' answers, and
//     a call in which every context failed is a tool error (IsError).
//   - Only get, list and watch reach an API server. The values of a
//     Secret's data and stringData are emptied as the Secret is decoded,
//     before any cache holds it (its key names stay), so no tool returns
//     them; no tool returns kubeconfig contents, tokens or certificates.
//   - Every result fits the token budget (Options.MaxResultTokens, counted
//     as bytes/4 of the structured content and the text form together); a
//     result that had to be cut says so, with its totals and how to
//     narrow the question.
package mcp
