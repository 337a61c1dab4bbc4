package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "54eb195ebbba0303d4d22cebf50c8ff78701c435"},
		{Key: "vcs.time", Value: "2026-11-28T12:08:11Z"},
	}
	tests := []struct {
		name                              string
		info                              debug.BuildInfo
		version, commit, date             string
		wantVersion, wantCommit, wantDate string
	}{
		{
			name:    "go install at a version",
			info:    debug.BuildInfo{Main: debug.Module{Version: "v0.1.0"}},
			version: defaultVersion, commit: defaultUnknown, date: defaultUnknown,
			wantVersion: "v0.1.0", wantCommit: defaultUnknown, wantDate: defaultUnknown,
		},
		{
			name:    "go build in a git checkout",
			info:    debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128120811-54eb195ebbba+dirty"}, Settings: vcs},
			version: defaultVersion, commit: defaultUnknown, date: defaultUnknown,
			wantVersion: "v0.0.0-20261128120811-54eb195ebbba+dirty", wantCommit: "54eb195ebbba0303d4d22cebf50c8ff78701c435", wantDate: "2026-11-28T12:08:11Z",
		},
		{
			name:    "no version, no VCS",
			info:    debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			version: defaultVersion, commit: defaultUnknown, date: defaultUnknown,
			wantVersion: defaultVersion, wantCommit: defaultUnknown, wantDate: defaultUnknown,
		},
		{
			name:    "stamped by ldflags",
			info:    debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128120811-54eb195ebbba"}, Settings: vcs},
			version: "v0.1.1-dev.g54eb195", commit: "54eb195", date: "2026-11-28T12:08:11+00:00",
			wantVersion: "v0.1.1-dev.g54eb195", wantCommit: "54eb195", wantDate: "2026-11-28T12:08:11+00:00",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version, commit, date := fromBuildInfo(&tt.info, tt.version, tt.commit, tt.date)
			if version != tt.wantVersion || commit != tt.wantCommit || date != tt.wantDate {
				t.Errorf("fromBuildInfo(%s) = %q, %q, %q, want %q, %q, %q",
					tt.name, version, commit, date, tt.wantVersion, tt.wantCommit, tt.wantDate)
			}
		})
	}
}
