package aggregate

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
)

// valueJSON is a Value as JSON: exactly one of Text, Number and Used is
// set, none for a blank cell. Count says a number, or a share's used and
// allocatable, prints as an integer.
type valueJSON struct {
	Text   *string            `json:"text,omitempty"`
	Number *resource.Quantity `json:"number,omitempty"`
	Used   *resource.Quantity `json:"used,omitempty"`
	// Of is a share's allocatable, absent when it is unknown.
	Of    *resource.Quantity `json:"of,omitempty"`
	Count bool               `json:"count,omitempty"`
	// Ratio says a share prints what it is a share of ("721m/1500m (48%)").
	Ratio bool `json:"ratio,omitempty"`
}

// MarshalJSON encodes v so that UnmarshalJSON gives back a Value that prints,
// compares and adds up as v does: a table of groups travels as data.
func (v Value) MarshalJSON() ([]byte, error) {
	var j valueJSON
	switch v.kind {
	case kindText:
		j.Text = &v.text
	case kindNumber:
		j.Number, j.Count = &v.q, v.count
	case kindShare:
		j.Used, j.Count, j.Ratio = &v.q, v.count, v.showOf
		if v.ofKnown {
			j.Of = &v.of
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes a Value encoded by MarshalJSON.
func (v *Value) UnmarshalJSON(b []byte) error {
	var j valueJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	set := 0
	for _, p := range []bool{j.Text != nil, j.Number != nil, j.Used != nil} {
		if p {
			set++
		}
	}
	if set > 1 {
		return fmt.Errorf("a table cell has more than one of text, number and used")
	}
	switch {
	case j.Text != nil:
		*v = Text(*j.Text)
	case j.Number != nil:
		*v = Value{kind: kindNumber, q: *j.Number, count: j.Count}
	case j.Used != nil:
		*v = Value{kind: kindShare, q: *j.Used, count: j.Count, showOf: j.Ratio}
		if j.Of != nil {
			v.of, v.ofKnown = *j.Of, true
		}
	default:
		*v = Value{}
	}
	return nil
}
