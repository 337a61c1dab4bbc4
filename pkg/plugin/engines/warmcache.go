package engines

import (
	"fmt"
	"time"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// DialTimeout bounds the connection to a warm cache and its hello: a cache
// that does not answer in time is treated as broken.
const DialTimeout = 2 * time.Second

// FirstFrameMargin is added to the command's --sync-timeout to bound the
// wait for the cache's first frame: a cache that says nothing for that long
// is lost, and the command reads its API server itself.
const FirstFrameMargin = 10 * time.Second

// OtherBuild says how the cache's build differs from this one ("" when
// they are the same build): its version, or, with the same version string
// (every build outside the Makefile is v0.0.0-dev), its build identity.
func OtherBuild(hello protocol.Hello) string {
	switch {
	case hello.Build != version.Version:
		return fmt.Sprintf("it runs kubectl-informer %s, this is %s", hello.Build, version.Version)
	case hello.BuildID != version.BuildID():
		return fmt.Sprintf("it runs another build of kubectl-informer %s", version.Version)
	}
	return ""
}
