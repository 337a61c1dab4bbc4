package protocol

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDurationJSON(t *testing.T) {
	out, err := json.Marshal(Duration(30 * time.Minute))
	if err != nil || string(out) != `"30m0s"` {
		t.Fatalf("Marshal(30m) = %s, %v; want \"30m0s\"", out, err)
	}
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{`"30m0s"`, 30 * time.Minute, true},
		{`"0s"`, 0, true},
		{`1800000000000`, 30 * time.Minute, true}, // a cache of an earlier build
		{`"soon"`, 0, false},
		{`true`, 0, false},
	} {
		var d Duration
		err := json.Unmarshal([]byte(tt.in), &d)
		if (err == nil) != tt.ok || tt.ok && time.Duration(d) != tt.want {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v (ok %v)", tt.in, time.Duration(d), err, tt.want, tt.ok)
		}
	}
}
