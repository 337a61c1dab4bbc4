// Package version holds the build's version, commit and date, stamped by the
// Makefile and .goreleaser.yaml with -ldflags "-X …".
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version, Commit and Date are set at build time. A build that did not stamp
// them takes what the Go toolchain recorded instead (see fromBuildInfo): the
// module's version of `go install …@vX.Y.Z`, the revision and its time of a
// build in a git checkout. The defaults mark a build with neither.
var (
	Version = defaultVersion
	Commit  = defaultUnknown
	Date    = defaultUnknown
)

const (
	defaultVersion = "v0.0.0-dev"
	defaultUnknown = "unknown"
)

func init() {
	if info, ok := debug.ReadBuildInfo(); ok {
		Version, Commit, Date = fromBuildInfo(info, Version, Commit, Date)
	}
}

// fromBuildInfo returns version, commit and date with those still at their
// defaults taken from info where it has them: the main module's version
// (not "(devel)", what a build of a checkout's own module records without
// VCS information), vcs.revision, and vcs.time.
func fromBuildInfo(info *debug.BuildInfo, version, commit, date string) (string, string, string) {
	if version == defaultVersion && info.Main.Version != "" && info.Main.Version != "(devel)" {
		version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && commit == defaultUnknown && s.Value != "":
			commit = s.Value
		case s.Key == "vcs.time" && date == defaultUnknown && s.Value != "":
			date = s.Value
		}
	}
	return version, commit, date
}

// UserAgent is the User-Agent the plugin sends, so that audit logs and
// apiserver metrics name the plugin and its version.
func UserAgent() string {
	return fmt.Sprintf("kubectl-informer/%s (%s/%s) %s", Version, runtime.GOOS, runtime.GOARCH, shortCommit())
}

// ClientGoVersion returns the version of k8s.io/client-go compiled into the
// binary, or "unknown" when the build info is missing.
func ClientGoVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == "k8s.io/client-go" {
			return dep.Version
		}
	}
	return "unknown"
}

func shortCommit() string {
	if len(Commit) > 7 {
		return Commit[:7]
	}
	return Commit
}
