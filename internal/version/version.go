// Package version holds the build's version, commit and date, stamped by the
// Makefile with -ldflags "-X …".
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version, Commit and Date are set at build time; the defaults mark a build
// that did not go through the Makefile.
var (
	Version = "v0.0.0-dev"
	Commit  = "unknown"
	Date    = "unknown"
)

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
