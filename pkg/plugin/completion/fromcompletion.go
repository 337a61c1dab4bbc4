package completion

import (
	"github.com/kubectl-informer/kubectl-informer/pkg/offline"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
)

// completeFromResourceTypes completes the TYPE argument of a command given
// --from: the types the files' source serves (built-in types, the custom
// resources of the CRDs in the files, the other kinds the files hold), as
// a command over them resolves TYPE, never the kubeconfig's server. It
// returns nothing if the files do not read within completionTimeout (a
// dump large enough to take longer is not waited for).
func completeFromResourceTypes(paths []string, toComplete string) []string {
	s, _ := cmdutil.WithinTimeout(CompletionTimeout, func() *offline.Source {
		source, err := engines.LoadFrom(paths)
		if s, ok := source.(*offline.Source); ok && err == nil {
			return s
		}
		return nil
	})
	if s == nil {
		return nil
	}
	return resourceTypeNames(s.Resources(), toComplete)
}
