package engines

import (
	"testing"
	"time"
)

// TestClientLocation: the client's TZ resolves as Go resolves its own.
func TestClientLocation(t *testing.T) {
	ptr := func(s string) *string { return &s }
	// 2026-07-01 12:00 UTC: Kolkata +5:30, New York -4 (summer time).
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		tz     *string
		offset int // seconds east of UTC at `at`
	}{
		{"zone name", ptr("Asia/Kolkata"), 5*3600 + 1800},
		{"leading colon", ptr(":America/New_York"), -4 * 3600},
		{"zoneinfo path", ptr("/usr/share/zoneinfo/Asia/Kolkata"), 5*3600 + 1800},
		{"empty is UTC", ptr(""), 0},
		{"UTC", ptr("UTC"), 0},
		{"unknown zone is UTC", ptr("No/Such_Zone"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := at.In(ClientLocation(tt.tz)).Zone()
			if got != tt.offset {
				t.Errorf("clientLocation(%q) puts %s at offset %d, want %d", *tt.tz, at, got, tt.offset)
			}
		})
	}
	// Unset: /etc/localtime, whatever this process's own TZ says.
	t.Setenv("TZ", "Asia/Kolkata")
	want := zoneFile("/etc/localtime", "Local")
	_, wantOff := at.In(want).Zone()
	if _, got := at.In(ClientLocation(nil)).Zone(); got != wantOff {
		t.Errorf("clientLocation(nil) offset %d, want /etc/localtime's %d", got, wantOff)
	}
}
