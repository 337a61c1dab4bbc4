package engines

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
)

// WarmRESTMapper returns the REST mapper of a cache process: kubectl's
// (deferred discovery behind the short-name expander), with discovery kept
// in memory rather than read back from the disk cache for every command.
// Reset (engineOptions.resolve calls it when a type is not found) empties
// the memory and the disk cache alike, so a type created since is found
// after one fresh discovery.
func WarmRESTMapper(configFlags *genericclioptions.ConfigFlags) (meta.RESTMapper, error) {
	disk, err := configFlags.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	discovery := memory.NewMemCacheClient(disk)
	return restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(discovery), discovery, func(string) {}), nil
}
