package completion

import (
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/offline"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
)

// completeFromResourceTypes completes the TYPE argument of a command given
// --from: the types the files' source serves (built-in types, the custom
// resources of the CRDs in the files, the other kinds the files hold), as
// a command over them resolves TYPE, never the kubeconfig's server. It
// returns nothing if the files do not read within completionTimeout (a
// dump large enough to take longer is not waited for).
func completeFromResourceTypes(paths []string, toComplete string) []string {
	done := make(chan *offline.Source, 1)
	go func() {
		source, err := engines.LoadFrom(paths)
		s, _ := source.(*offline.Source)
		if err != nil {
			s = nil
		}
		done <- s
	}()
	select {
	case s := <-done:
		if s == nil {
			return nil
		}
		return resourceTypeNames(s.Resources(), toComplete)
	case <-time.After(CompletionTimeout):
		return nil
	}
}
