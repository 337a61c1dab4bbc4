package cachecmd

import (
	"strings"
	"testing"
	"time"
)

func TestValidateIdleTimeout(t *testing.T) {
	for _, tt := range []struct {
		d       time.Duration
		wantErr bool
	}{
		{0, false}, {time.Second, false}, {30 * time.Minute, false},
		{1, true}, {3 * time.Nanosecond, true}, {999 * time.Millisecond, true}, {-time.Second, true},
	} {
		err := validateIdleTimeout(tt.d)
		if (err != nil) != tt.wantErr {
			t.Errorf("validateIdleTimeout(%s) = %v, want error %v", tt.d, err, tt.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), "--idle-timeout") {
			t.Errorf("validateIdleTimeout(%s) = %q, want it to name the flag", tt.d, err)
		}
	}
}
