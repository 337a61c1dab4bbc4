// Package fleet merges the answers of several kubeconfig contexts: grouped
// tables whose counts and sums add up across contexts (MergeTables) and
// capacity tables (MergeCapacity), and names the built-in index of a
// row's context (ContextIndex). Which contexts a command asks, and running
// its work once per context, belong to package targets.
package fleet
