package index

import (
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Index names of the reference indexes.
const (
	usesIndexName   = "uses"
	usedByIndexName = "used-by"
)

const (
	usesDescription   = "KIND/NAME of each object a pod, workload's pod template, Ingress or role binding refers to (ConfigMaps, Secrets, ServiceAccount, claims and their volumes and classes, PriorityClass, RuntimeClass, Services, subjects, role)"
	usedByDescription = "KIND/NAME of each pod, workload, Ingress, role binding, ServiceAccount or claim that refers to the object (see uses); !used-by finds objects nothing refers to"
)

// Referenced is what uses reads besides the object: the cached ServiceAccounts and
// PersistentVolumeClaims, whose imagePullSecrets, volumes and classes a pod uses through them.
// Implementations must be safe for concurrent use.
type Referenced interface {
	// Referenced returns the cached object of kind ("ServiceAccount", "PersistentVolumeClaim")
	// in namespace with name, nil when it is not cached.
	Referenced(kind, namespace, name string) interface{}
}

// Uses returns every object obj refers to: References, and, through related, for a pod or a
// pod template, the imagePullSecrets of its ServiceAccount (Field "imagePullSecrets
// (ServiceAccount/NAME)") and the PersistentVolume and StorageClass of each of its claims
// (Field "volumeName (PersistentVolumeClaim/NAME)", "storageClassName (…)"). A nil related adds
// nothing.
func Uses(obj interface{}, related Referenced) []Reference {
	refs := References(obj)
	if related == nil {
		return refs
	}
	if k := kindOfObject(Unwrap(obj)); k == "ServiceAccount" || k == "PersistentVolumeClaim" || k == "PersistentVolume" {
		return refs
	}
	w := &refWalker{}
	for _, r := range refs {
		w.add(r)
	}
	for _, r := range refs {
		switch {
		case r.Kind == "ServiceAccount" && r.Field == "serviceAccountName":
			for _, s := range References(related.Referenced(r.Kind, r.Namespace, r.Name)) {
				if s.Field == "imagePullSecrets" {
					s.Field += " (ServiceAccount/" + r.Name + ")"
					w.add(s)
				}
			}
		case r.Kind == "PersistentVolumeClaim":
			for _, s := range References(related.Referenced(r.Kind, r.Namespace, r.Name)) {
				s.Field += " (PersistentVolumeClaim/" + r.Name + ")"
				w.add(s)
			}
		}
	}
	return w.refs
}

// UsesIndex returns the uses index over related: for a pod, a workload (its pod template), an
// Ingress, a role binding, a ServiceAccount or a claim, Reference.Value of each object Uses
// gives, seen from the object's namespace: "ConfigMap/app-config", "Secret/db-creds",
// "ServiceAccount/other-ns/builder" (a RoleBinding's subject of another namespace),
// "User/alice", "Group/system:masters". Other objects have no value. Like SelectedBy, the
// values read the related caches when the object enters or changes in its cache: hold them in
// a RelationIndex.
func UsesIndex(related Referenced) Definition {
	return Definition{
		Name:        usesIndexName,
		Description: usesDescription,
		Relation:    UsesRelation,
		Func: func(obj interface{}) ([]string, error) {
			m, err := accessor(obj)
			if err != nil {
				return nil, err
			}
			var values []string
			for _, r := range Uses(obj, related) {
				values = appendUnique(values, r.Value(m.GetNamespace()))
			}
			return values, nil
		},
	}
}

// Users is what used-by reads: which objects refer to an object. Implementations must be safe
// for concurrent use.
type Users interface {
	// Users returns the objects that refer to target, each as a Reference to the user (its
	// kind, namespace and name) whose Field is how it refers to target.
	Users(target ReferenceKey) []Reference
}

// UsedByIndex returns the used-by index over users: for a ConfigMap, Secret, ServiceAccount,
// PersistentVolumeClaim, PersistentVolume, StorageClass, PriorityClass, RuntimeClass, Service,
// Role or ClusterRole, Reference.Value of each user seen from the object's namespace:
// "Pod/web-5d9c7-x2x4z", "Deployment/web", "RoleBinding/ci/deployers", "Pod/shop/db-0" (a
// cluster-scoped object's user). Objects of other kinds, and objects nothing refers to, have
// no value. Metadata is enough: the users are read from their own caches.
func UsedByIndex(users Users) Definition {
	return Definition{
		Name:         usedByIndexName,
		Description:  usedByDescription,
		MetadataOnly: true,
		Relation:     UsedByRelation,
		Func: func(obj interface{}) ([]string, error) {
			m, err := accessor(obj)
			if err != nil {
				return nil, err
			}
			kind := kindOfObject(Unwrap(obj))
			if users == nil || userKindsOf[kind] == nil {
				return nil, nil
			}
			var values []string
			for _, u := range users.Users(ReferenceKey{Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName()}) {
				values = appendUnique(values, u.Value(m.GetNamespace()))
			}
			sort.Strings(values)
			return values, nil
		},
	}
}

// The kinds whose objects refer to others, by what they refer to.
var (
	podKinds = []schema.GroupKind{
		{Kind: "Pod"}, {Kind: "ReplicationController"},
		{Group: "apps", Kind: "Deployment"}, {Group: "apps", Kind: "ReplicaSet"},
		{Group: "apps", Kind: "StatefulSet"}, {Group: "apps", Kind: "DaemonSet"},
		{Group: "batch", Kind: "Job"}, {Group: "batch", Kind: "CronJob"},
	}
	serviceAccountKind = schema.GroupKind{Kind: "ServiceAccount"}
	claimKind          = schema.GroupKind{Kind: "PersistentVolumeClaim"}
	volumeKind         = schema.GroupKind{Kind: "PersistentVolume"}
	ingressKind        = schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}
	bindingKinds       = []schema.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}, {Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}}
)

// userKindsOf are, for each kind used-by answers, the kinds whose objects may refer to it.
var userKindsOf = map[string][]schema.GroupKind{
	"ConfigMap":             podKinds,
	"Secret":                append([]schema.GroupKind{serviceAccountKind, ingressKind}, podKinds...),
	"ServiceAccount":        append(append([]schema.GroupKind{}, bindingKinds...), podKinds...),
	"PersistentVolumeClaim": podKinds,
	"PersistentVolume":      append([]schema.GroupKind{claimKind}, podKinds...),
	"StorageClass":          append([]schema.GroupKind{claimKind, volumeKind}, podKinds...),
	"PriorityClass":         podKinds,
	"RuntimeClass":          podKinds,
	"Service":               {ingressKind},
	"Role":                  bindingKinds,
	"ClusterRole":           bindingKinds,
}

// UserKinds returns the kinds used-by reads to answer for objects of kinds (as the API names
// them: "ConfigMap", "StorageClass"), sorted by kind: those whose objects may refer to them,
// and ServiceAccounts and PersistentVolumeClaims when pods or workloads are among them (a pod
// uses its ServiceAccount's imagePullSecrets and its claims' volumes). Kinds used-by does not
// answer add none.
func UserKinds(kinds []string) []schema.GroupKind {
	seen := map[schema.GroupKind]bool{}
	for _, k := range kinds {
		for _, gk := range userKindsOf[k] {
			seen[gk] = true
		}
	}
	if seen[schema.GroupKind{Kind: "Pod"}] {
		seen[serviceAccountKind], seen[claimKind] = true, true
	}
	return sortedKinds(seen)
}

// UsesKinds returns the kinds uses reads besides the objects of kinds: ServiceAccounts and
// PersistentVolumeClaims when kinds hold pods or workloads, none otherwise.
func UsesKinds(kinds []string) []schema.GroupKind {
	for _, k := range kinds {
		for _, gk := range podKinds {
			if gk.Kind == k {
				return []schema.GroupKind{claimKind, serviceAccountKind}
			}
		}
	}
	return nil
}

// sortedKinds returns the kinds of set sorted by kind.
func sortedKinds(set map[schema.GroupKind]bool) []schema.GroupKind {
	kinds := make([]schema.GroupKind, 0, len(set))
	for gk := range set {
		kinds = append(kinds, gk)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].Kind < kinds[j].Kind })
	return kinds
}

// ReferenceSet holds who refers to what: for each object of a referrer kind it was given (see
// References), what Uses gives through Related, inverted by referenced object. It is the Users
// used-by reads, and what the engine updates as referrers change. A ReferenceSet is safe for
// concurrent use.
type ReferenceSet struct {
	related Referenced

	mu      sync.RWMutex
	users   map[ReferenceKey]userEntry
	targets map[ReferenceKey]map[ReferenceKey][]string // target → user → fields
}

// userEntry is one referrer: its last object and what it refers to.
type userEntry struct {
	obj  interface{}
	refs []Reference
}

// NewReferenceSet returns the ReferenceSet of objs, reading related for what pods use through
// their ServiceAccounts and claims (nil: nothing).
func NewReferenceSet(related Referenced, objs []interface{}) *ReferenceSet {
	s := &ReferenceSet{related: related, users: map[ReferenceKey]userEntry{}, targets: map[ReferenceKey]map[ReferenceKey][]string{}}
	for _, obj := range objs {
		s.Set(obj)
	}
	return s
}

// userKey returns the key of a referrer object, ok false for objects References does not read.
func userKey(obj interface{}) (ReferenceKey, bool) {
	m, err := accessor(obj)
	if err != nil {
		return ReferenceKey{}, false
	}
	obj = Unwrap(obj)
	kind := kindOfObject(obj)
	if kind == "" {
		kind = referrerKindOf(obj)
	}
	if _, ok := referrerGroups[kind]; !ok {
		return ReferenceKey{}, false
	}
	return ReferenceKey{Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName()}, true
}

// Set records obj, a referrer that was added or changed, and the users whose references go
// through it (the pods of a ServiceAccount or claim), and returns the referenced objects whose
// users changed.
func (s *ReferenceSet) Set(obj interface{}) []ReferenceKey {
	key, ok := userKey(obj)
	if !ok {
		return nil
	}
	refs := Uses(obj, s.related)
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := s.put(key, userEntry{obj: obj, refs: refs})
	return append(changed, s.through(key)...)
}

// Delete forgets obj, a referrer that was deleted, refreshes the users whose references went
// through it, and returns the referenced objects whose users changed.
func (s *ReferenceSet) Delete(obj interface{}) []ReferenceKey {
	key, ok := userKey(obj)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := s.put(key, userEntry{})
	return append(changed, s.through(key)...)
}

// through recomputes the users that refer to via (a ServiceAccount or claim whose own
// references changed) and returns the referenced objects whose users changed. s.mu is held.
func (s *ReferenceSet) through(via ReferenceKey) []ReferenceKey {
	if via.Kind != "ServiceAccount" && via.Kind != "PersistentVolumeClaim" {
		return nil
	}
	var changed []ReferenceKey
	for user := range s.targets[via] {
		e := s.users[user]
		if e.obj == nil {
			continue
		}
		changed = append(changed, s.put(user, userEntry{obj: e.obj, refs: Uses(e.obj, s.related)})...)
	}
	return changed
}

// put replaces the entry of user (none when e.obj is nil) and returns the referenced objects
// whose users changed. s.mu is held.
func (s *ReferenceSet) put(user ReferenceKey, e userEntry) []ReferenceKey {
	old := s.users[user]
	oldFields, newFields := fieldsByTarget(old.refs), fieldsByTarget(e.refs)
	var changed []ReferenceKey
	for target, fields := range oldFields {
		if nf, ok := newFields[target]; ok && equalStrings(nf, fields) {
			continue
		}
		changed = append(changed, target)
		delete(s.targets[target], user)
		if len(s.targets[target]) == 0 {
			delete(s.targets, target)
		}
	}
	for target, fields := range newFields {
		if of, ok := oldFields[target]; ok && equalStrings(of, fields) {
			continue
		}
		if _, ok := oldFields[target]; !ok {
			changed = append(changed, target)
		}
		if s.targets[target] == nil {
			s.targets[target] = map[ReferenceKey][]string{}
		}
		s.targets[target][user] = fields
	}
	if e.obj == nil {
		delete(s.users, user)
	} else {
		s.users[user] = e
	}
	return changed
}

// fieldsByTarget groups the fields of refs by referenced object.
func fieldsByTarget(refs []Reference) map[ReferenceKey][]string {
	out := make(map[ReferenceKey][]string, len(refs))
	for _, r := range refs {
		out[r.Key()] = append(out[r.Key()], r.Field)
	}
	return out
}

// equalStrings reports whether a and b hold the same strings in the same order.
func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Users implements Users, sorted by kind, namespace and name, one Reference per field.
func (s *ReferenceSet) Users(target ReferenceKey) []Reference {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Reference
	for user, fields := range s.targets[target] {
		for _, f := range fields {
			out = append(out, Reference{Kind: user.Kind, Namespace: user.Namespace, Name: user.Name, Field: f})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Field < b.Field
	})
	return out
}
