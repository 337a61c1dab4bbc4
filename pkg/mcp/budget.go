package mcp

import (
	"encoding/json"
	"fmt"
)

// bytesPerToken is how a result's size is counted against the budget:
// every four bytes of the structured content and of the text form are a
// token. Real tokenizers count JSON and tables at about that rate or
// fewer bytes per token, so a result within budget by this count is close
// to it by theirs.
const bytesPerToken = 4

// narrowHint says how to ask a question whose answer is smaller.
const narrowHint = "ask for counts instead of rows (groupBy, e.g. [\"node\"] or [\"namespace\"], or sums), " +
	"name a namespace, select with an index (index [\"node=NAME\"], [\"label:app=web\"]; see the indexers tool) " +
	"or a CEL filter, or set a smaller limit"

// Cut says that a result was cut to fit the token budget.
type Cut struct {
	// Reason says why, with the budget.
	Reason string `json:"reason"`
	// MaxResultTokens is the budget, counted as bytes/4.
	MaxResultTokens int `json:"maxResultTokens"`
	// Returned of Total items (rows, types, contexts) are in the result.
	Returned int `json:"returned"`
	Total    int `json:"total"`
	// Narrow says how to ask for a smaller answer.
	Narrow string `json:"narrow"`
}

// resultSize is the size, in bytes, of a result whose structured content
// is out and whose text form is text.
func resultSize(out any, text string) int {
	b, err := json.Marshal(out)
	if err != nil {
		return 0
	}
	return len(b) + len(text)
}

// fitBudget returns the largest cap k in [0, most] for which size(k) is at
// most maxTokens tokens, or 0 when none is. size must grow with k.
func fitBudget(maxTokens, most int, size func(k int) int) int {
	limit := maxTokens * bytesPerToken
	if size(most) <= limit {
		return most
	}
	lo, hi := 0, most
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if size(mid) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// newCut describes a result cut to returned of total items.
func newCut(maxTokens, returned, total int, what string) *Cut {
	return &Cut{
		Reason:          fmt.Sprintf("the whole answer exceeds the budget of %d tokens (counted as bytes/4): %d of %d %s returned", maxTokens, returned, total, what),
		MaxResultTokens: maxTokens,
		Returned:        returned,
		Total:           total,
		Narrow:          narrowHint,
	}
}

// cuttable is an answer whose lists of items (rows, lines) can be cut,
// A itself.
type cuttable[A any] interface {
	// size is the answer's longest list of items, which take cuts, and
	// its count of items.
	size() (longest, count int)
	// take is the answer with its lists cut to their first k items.
	take(k int) A
}

// fitAnswers cuts each of answers to its first k items, k the largest
// that lets the result fit maxTokens, and returns the result out builds
// from the cut answers and, when anything was left out, the Cut that says
// so (what names the items).
func fitAnswers[A cuttable[A], O any](maxTokens int, answers []A, what string, out func([]A, *Cut) (O, string)) (O, string) {
	most, total := 0, 0
	for _, a := range answers {
		longest, count := a.size()
		most, total = max(most, longest), total+count
	}
	build := func(k int) (O, string) {
		cut := make([]A, len(answers))
		returned := 0
		for i, a := range answers {
			cut[i] = a.take(k)
			_, count := cut[i].size()
			returned += count
		}
		var c *Cut
		if k < most {
			c = newCut(maxTokens, returned, total, what)
		}
		return out(cut, c)
	}
	k := fitBudget(maxTokens, most, func(k int) int { return resultSize(build(k)) })
	return build(k)
}
