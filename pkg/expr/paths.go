package expr

import (
	celast "github.com/google/cel-go/common/ast"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// objectPaths returns the paths of object the checked expression a reads:
// for each use of the variable, the field names selected from it in a row
// (object.status.phase is status, phase; object.metadata.labels['app'] is
// metadata, labels; has(object.spec.x) is spec, x). A use of object itself
// (passed whole, indexed by a computed key) is the empty path: the whole
// object. Evaluation then needs only those parts (object.Projection): an
// absent field reads as absent, a present one as it is in the object.
func objectPaths(a *celast.AST) object.Paths {
	refs := a.ReferenceMap()
	uses := celast.MatchDescendants(celast.NavigateAST(a), func(e celast.NavigableExpr) bool {
		if e.Kind() != celast.IdentKind {
			return false
		}
		r, ok := refs[e.ID()]
		return ok && r.Name == objectVar
	})
	var paths object.Paths
	for _, use := range uses {
		path := []string{}
		e := use
		for {
			parent, ok := e.Parent()
			if !ok || parent.Kind() != celast.SelectKind || parent.AsSelect().Operand().ID() != e.ID() {
				break
			}
			path = append(path, parent.AsSelect().FieldName())
			if parent.AsSelect().IsTestOnly() {
				break
			}
			e = parent
		}
		paths = append(paths, path)
	}
	return paths
}
