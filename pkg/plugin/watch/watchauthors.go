package watch

import (
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fieldmanagers"
)

// This file says who made an update: the managers whose managedFields sets
// own what it changed, as the engine keeps them (engine.InternManagedFields).

// attribute returns the names of the managers that own what the update u
// of ev changed, and a label for a change the server records no owner for
// but that is certain (fieldmanagers.Cause), or "". It reads u's
// projections, so only the changes the diff options let through count:
// --only and --ignore attribute what is shown.
func (p *EventPrinter) attribute(ev *engine.Event, u *diff.Update) ([]string, string) {
	if p.Cfg.Format == formatName {
		return nil, "" // -o name prints neither
	}
	o, err1 := meta.Accessor(ev.Old)
	n, err2 := meta.Accessor(ev.New)
	if err1 != nil || err2 != nil {
		return nil, ""
	}
	old, new := u.Projected()
	managers := fieldmanagers.Authors(old, new, fieldmanagers.Entries(o.GetManagedFields()), fieldmanagers.Entries(n.GetManagedFields()))
	gr := ev.Resource.Mapping.Resource.GroupResource()
	return managers, fieldmanagers.Cause(old, new, gr.Group == "" && gr.Resource == "pods")
}
