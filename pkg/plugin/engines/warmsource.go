package engines

import (
	"fmt"
	"io"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
)

// warmCache returns a connection to the warm cache of configFlags'
// identity when one runs and may be used: --cache auto, a command of its
// own (not inside a cache process, not over --from files), a cache that
// answers and is of this build (CacheIdentity.DialWarm). nil otherwise; an
// unusable cache is said once on errOut, none at all is silent. The
// caller closes the connection.
func (o *EngineOptions) warmCache(configFlags *genericclioptions.ConfigFlags, errOut io.Writer) *client.Conn {
	if _, direct := o.Engines.(DirectEngines); !direct || o.Cache != "auto" {
		return nil
	}
	id, err := ResolveCacheIdentity(configFlags)
	if err != nil {
		klog.V(1).InfoS("not using a warm cache", "err", err)
		return nil
	}
	conn, err := id.DialWarm()
	if err != nil {
		fmt.Fprintf(errOut, "warning: not using the warm cache: %v; asking the API server directly\n", err)
		return nil
	}
	if conn != nil {
		klog.V(1).InfoS("using the warm cache", "socket", id.Socket, "pid", conn.Hello.Pid)
	}
	return conn
}

// ReadDirectly makes the target's engines read its API server, not its
// warm cache: for a one-shot query the cache did not answer, which then
// reads only what it needs (metadata, a selection), as it would without a
// cache.
func (o *EngineOptions) ReadDirectly() {
	if warm, ok := o.Source.(*client.Source); ok {
		o.Source = warm.Direct
	}
	if o.WarmConn != nil {
		o.WarmConn.Close()
	}
	o.WarmSocket, o.WarmConn = "", nil
}
