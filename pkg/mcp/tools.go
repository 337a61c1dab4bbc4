package mcp

import (
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// readOnly marks a tool that changes nothing and can be called again.
var readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}

// addTools registers the server's tools.
func (s *Server) addTools() {
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "query",
		Title:       "Query the cluster cache",
		Annotations: readOnly,
		Description: "Answer a question about Kubernetes objects from warm informer caches, as `kubectl informer query` does: " +
			"objects of TYPES as kubectl's table (or custom columns), or, with groupBy and sums, one row per group with its count " +
			"(pods per node: types=pods, allNamespaces=true, groupBy=[\"node\"]). Select with index (NAME=VALUE, see the indexers tool), " +
			"labelSelector and a CEL filter. Prefer groups to lists: the result is cut to the token budget and says so. " +
			"The first call about a type in a context lists it; later calls answer from memory.",
	}, s.query)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "capacity",
		Title:       "Node capacity",
		Annotations: readOnly,
		Description: "Per node (or per group of nodes, groupBy=label:topology.kubernetes.io/zone) the pods bound there and their CPU and memory " +
			"requests and limits against the node's allocatable, with percentages and a total, as `kubectl informer capacity` prints them: " +
			"requests counted as kube-scheduler counts them (init containers, sidecars, overhead; finished pods count for nothing). " +
			"Pods of every namespace count unless namespace is set.",
	}, s.capacity)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "tree",
		Title:       "Object trees",
		Annotations: readOnly,
		Description: "Draw an object's tree as `kubectl informer tree` does: down (default) what it owns, recursively " +
			"(deployment/web: its ReplicaSets and their pods; a Service: the pods it selects), up the chain of controllers from a pod to the top-most, " +
			"or refs what it uses and what uses it (which pods use ConfigMap app-config). Each line has kubectl's READY and STATUS cells and the AGE.",
	}, s.tree)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "events",
		Title:       "Events about an object",
		Annotations: readOnly,
		Description: "The Kubernetes Events about one object (object=pod/web-5d9c7-x2x4z, deployment/web, node/worker-1), newest first: " +
			"when, type, reason, count, source and message, as kubectl get events shows them; type=Warning for the problems only. " +
			"Answered from the warm Events of the object's namespace through an index by involved object.",
	}, s.events)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "wait",
		Title:       "Wait for a condition",
		Annotations: readOnly,
		Description: "Wait until every object a query selects meets a CEL condition, or the timeout passes (default 60s, at most 600s): " +
			"\"tell me when the rollout is done\" is types=deployments.apps, filter=object.metadata.name == 'web', " +
			"condition=object.status.updatedReplicas == object.spec.replicas && object.status.availableReplicas == object.spec.replicas. " +
			"It asks the warm caches every second; the answer says whether the condition was met, after how long, and which objects did not meet it.",
	}, s.wait)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "contexts",
		Title:       "Kubeconfig contexts",
		Annotations: readOnly,
		Description: "List the kubeconfig's contexts (names, cluster, default namespace; never credentials) and whether each API server answers now. " +
			"Each context is probed on its own; an unreachable one is reported beside the others.",
	}, s.contexts)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "types",
		Title:       "Types a context serves",
		Annotations: readOnly,
		Description: "List the resource types a context serves that a query can name (resource, or resource.group), from discovery.",
	}, s.types)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "indexers",
		Title:       "Built-in indexes",
		Annotations: readOnly,
		Description: "List the built-in indexes a query's index selectors and groupBy can name (node, namespace, phase, label:KEY, owner-root, uses, used-by, ...) and what each means.",
	}, s.indexers)
	if len(s.opts.Recordings) == 0 {
		return
	}
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "history",
		Title:       "An object's recorded history",
		Annotations: readOnly,
		Description: "Every recorded change of one object (object=deployment/web) in a recording this server was started with, oldest first, " +
			"as `kubectl informer history` prints it: ADDED, each update with the paths it changed (old and new values) and the field managers " +
			"who made it (kubectl-set, kube-controller-manager, ...), DELETED. only=[\"spec\"] or ignore=[\"status\"] narrow the changes. " +
			"Recordings: " + strings.Join(s.recordingNames(), ", ") + ".",
	}, s.history)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        "at",
		Title:       "Query the past",
		Annotations: readOnly,
		Description: "Answer a query as the cluster was at an instant of a recording this server was started with (at=2026-11-26T01:40:00Z, or -10m before its end; " +
			"empty is its end), with the query tool's arguments (types, namespace, index, filter, groupBy, sums, columns, ...): " +
			"\"what did the pods look like ten minutes ago\". Ages count from that instant. Recordings: " + strings.Join(s.recordingNames(), ", ") + ".",
	}, s.at)
}
