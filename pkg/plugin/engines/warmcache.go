package engines

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// DialTimeout bounds the connection to a warm cache and its hello: a cache
// that does not answer in time is treated as broken.
const DialTimeout = 2 * time.Second

// FirstFrameMargin is added to the command's --sync-timeout to bound the
// wait for the cache's first frame: a cache that says nothing for that long
// is lost, and the command reads its API server itself.
const FirstFrameMargin = 10 * time.Second

// DialWarm connects to the warm cache of identity id when one runs and may
// be used: its directory is the user's own (checked before the socket in
// it is used), it answers within DialTimeout, and it is of this build.
// With no cache there (no socket, a directory the user may not search, or
// nobody listening) it returns nil and no error; a cache that runs but
// may not be used is an error that says why. The caller closes the
// connection.
func (id CacheIdentity) DialWarm() (*client.Conn, error) {
	if _, err := os.Lstat(id.Socket); err != nil {
		return nil, nil
	}
	err := client.CheckDir(id.Dir)
	var conn *client.Conn
	if err == nil {
		conn, err = client.Dial(id.Socket, DialTimeout)
	}
	switch {
	case errors.Is(err, client.ErrNoCache):
		return nil, nil
	case err != nil:
		return nil, err
	}
	if other := otherBuild(conn.Hello); other != "" {
		conn.Close()
		return nil, fmt.Errorf("%s; restart it (kubectl informer cache stop; kubectl informer cache start)", other)
	}
	return conn, nil
}

// otherBuild says how the cache's build differs from this one ("" when
// they are the same build): its version, or, with the same version string
// (every build outside the Makefile is v0.0.0-dev), its build identity.
func otherBuild(hello protocol.Hello) string {
	switch {
	case hello.Build != version.Version:
		return fmt.Sprintf("it runs kubectl-informer %s, this is %s", hello.Build, version.Version)
	case hello.BuildID != version.BuildID():
		return fmt.Sprintf("it runs another build of kubectl-informer %s", version.Version)
	}
	return ""
}
