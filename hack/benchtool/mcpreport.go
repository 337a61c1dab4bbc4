package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The targets for the mcp step.
const (
	mcpCountBytesLimit = 2048                  // bytes of our answer to a count question
	mcpWarmLimit       = 50 * time.Millisecond // our warm call
	mcpRatioLimit      = 100                   // the anchor's bytes over ours, count questions
)

// claudeCodeMaxTokens is the largest tool result Claude Code accepts by
// default, in tokens.
const claudeCodeMaxTokens = 25000

// mcpSection is the mcp step's section of the report, "" when it did not
// run.
func (r *report) mcpSection() string {
	m := r.mcp
	if m == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	p("## MCP: four questions an agent asks, beside kubernetes-mcp-server (%d pods, median of %d warm calls)\n\n", m.pods, m.runs)
	p("Step `mcp` (issue 37). A cluster of its own, `hack/cluster up DIR --nodes %d` (kube-controller-manager, kube-scheduler, %d kwok nodes allowing %d pods in all), up in %.1f s; then a Deployment `%s/%s` of %d replicas whose pods read two ConfigMaps, and `hack/seed pods` of the other pods over %d namespaces, not bound: kube-scheduler put them on the kwok nodes until these were full and kwok ran them; the rest stayed Pending. %d more ConfigMaps that nothing uses (`hack/seed configmaps`). %d pods, %d Running, settled %.1f s after the first create.\n\n",
		m.nodes, m.nodes, m.capacity, m.upTime.Seconds(), mcpNamespace, mcpDeployment, mcpReplicas, mcpNamespaces, mcpConfigMaps,
		m.pods, m.pods-sumCounts(m.truth.notRunning), m.settleTime.Seconds())
	p("Both servers run over stdio, driven by one client written with the official Go SDK (`github.com/modelcontextprotocol/go-sdk`): `kubectl informer mcp` through the real kubectl, and kubernetes-mcp-server %s (npm `%s`, installed by the step into its temp dir; a Go binary) with `--read-only` and the admin kubeconfig. kubernetes-mcp-server has no counting or grouping, so its rows are the agent's way: list with the tools it offers (`pods_list` with a field selector where one narrows the list; the Deployment read first for its selector), then count or match in the model. Its list tools return a table without specs, so for the ConfigMaps question it is started with `--list-output yaml` (the pods' volumes and env are needed to see what uses a ConfigMap). The second question is put to our server twice: as the README's example has it, a CEL filter (evaluated over every pod on each call), and through the `phase` index (`phase!=Running`).\n\n", anchorVersion, anchorPackage)
	p("Each question is put to a new server process: *first call* is its first tool call after `initialize` and `tools/list` (our server starts its informers then; the anchor LISTs, as on every call), *warm* the median of the %d calls after it. *bytes* are the tool results as JSON (content and `structuredContent`), all calls of the way summed; *tokens* are bytes/4, the rate the budget of `kubectl informer mcp` counts by. *a model reads* is the larger of a result's two forms, the text content and the structured content as JSON: a client gives its model one of them (Claude Code and VS Code the structured content when there is one, anthropics/claude-code#55677, microsoft/vscode#290063; others the text), so that is what an answer costs a model; the issue's bytes target for counts is checked on it, and the ratio to the anchor on the bytes sent. *peak RSS* is the server process's `VmHWM` after its calls. Each of our answers, first and warm, is checked against the answer the bench computes from its own LIST of pods, ConfigMaps, Deployments and ReplicaSets; the anchor's first answer is counted or matched the agent's way and checked against the same. Load %.2f when the questions began.\n\n", m.runs, m.loadStart)
	p("| question | server | calls | bytes | tokens | a model reads | first call | warm (min–max) | peak RSS MiB | answer | load |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, q := range mcpQuestions {
		for _, srv := range m.servers {
			ms := m.measures[q.id][srv.id]
			if ms == nil {
				continue
			}
			answer := "right"
			if ms.err != "" {
				answer = "⚠ " + ms.err
			}
			warm := "–"
			if len(ms.warm) > 0 {
				lo, hi := slices.Min(ms.warm), slices.Max(ms.warm)
				warm = fmt.Sprintf("%s (%s–%s)", msText(ms.warmMedian()), msText(lo), msText(hi))
			}
			calls := make([]string, len(ms.way))
			for i, c := range ms.way {
				calls[i] = "`" + c + "`"
			}
			p("| %s | %s | %s | %s | %s | %s B | %s | %s | %.1f | %s | %.2f |\n", q.title, srv.title, strings.Join(calls, " + "),
				thousands(ms.bytes), thousands(ms.bytes/4), thousands(ms.read), msText(ms.first), warm, float64(ms.rssKiB)/1024, answer, ms.load)
		}
	}
	p("\n")
	var tools []string
	for _, srv := range m.servers {
		tools = append(tools, fmt.Sprintf("%s %s B", srv.title, thousands(srv.toolsBytes)))
	}
	p("`tools/list` results, read by a client before its first call: %s.\n\n", strings.Join(tools, "; "))
	var overClaude []string
	for _, q := range mcpQuestions {
		for _, srv := range m.servers {
			if ms := m.measures[q.id][srv.id]; ms != nil && ms.largest/4 > claudeCodeMaxTokens {
				overClaude = append(overClaude, fmt.Sprintf("%s, %s (%s tokens)", q.title, srv.title, thousands(ms.largest/4)))
			}
		}
	}
	if len(overClaude) > 0 {
		p("A single result over %s tokens (bytes/4), which Claude Code rejects by default: %s.\n\n", thousands(claudeCodeMaxTokens), strings.Join(overClaude, "; "))
	}
	for _, q := range mcpQuestions {
		for _, srv := range m.servers {
			if ms := m.measures[q.id][srv.id]; ms != nil && ms.largest > sdk.DefaultMaxLineLength {
				p("%s, %s: one result was %s bytes, over the Go SDK client's default frame limit (`DefaultMaxLineLength`, %s bytes): a client with the SDK's defaults fails that call (*inbound JSON-RPC frame exceeded the configured maximum line length*); the bench's client reads frames of any length to measure it.\n\n",
					q.title, srv.title, thousands(ms.largest), thousands(sdk.DefaultMaxLineLength))
			}
		}
	}
	if m.changed != "" {
		p("⚠ The cluster changed while the questions were asked (the bench's LIST after them differs from the one before): %s.\n\n", m.changed)
	}
	p("| target (issue 37) | measured | limit | verdict |\n| --- | --- | --- | --- |\n")
	for _, t := range m.targets() {
		verdict := "met"
		if !t.met {
			verdict = "**missed**"
		}
		p("| %s | %s | %s | %s |\n", t.name, t.measured, t.limit, verdict)
	}
	p("\n")
	return s.String()
}

// mcpTarget is one of the targets for the mcp step.
type mcpTarget struct {
	name, measured, limit string
	met                   bool
}

// targets are the targets, met or missed, for the questions that
// were measured.
func (m *mcpResult) targets() []mcpTarget {
	var out []mcpTarget
	for _, q := range mcpQuestions {
		ours := m.measures[q.id]["ours"]
		if ours == nil {
			continue
		}
		if q.count {
			out = append(out, mcpTarget{name: q.title + ": our answer's bytes a model reads", measured: thousands(ours.read) + " B",
				limit: "< " + thousands(mcpCountBytesLimit) + " B", met: ours.read < mcpCountBytesLimit})
		}
		if len(ours.warm) > 0 {
			out = append(out, mcpTarget{name: q.title + ": our warm call (median)", measured: msText(ours.warmMedian()),
				limit: "< " + msText(mcpWarmLimit), met: ours.warmMedian() < mcpWarmLimit})
		}
	}
	for _, q := range mcpQuestions {
		ours := m.measures[q.id]["ours"]
		anchorOf := q.id
		if q.anchorOf != "" {
			anchorOf = q.anchorOf
		}
		var anchor *mcpMeasure
		for id, ms := range m.measures[anchorOf] {
			if id != "ours" {
				anchor = ms
			}
		}
		if !q.count || ours == nil || anchor == nil || ours.bytes == 0 {
			continue
		}
		ratio := float64(anchor.bytes) / float64(ours.bytes)
		out = append(out, mcpTarget{name: q.title + ": the anchor's bytes over ours",
			measured: fmt.Sprintf("%.0f×", ratio), limit: fmt.Sprintf("≥ %d×", mcpRatioLimit), met: ratio >= mcpRatioLimit})
	}
	return out
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func msText(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1e3)
}

// thousands prints n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
