package expr

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/library"
)

// Kind says what an expression must evaluate to.
type Kind int

const (
	// Predicate expressions evaluate to bool: --filter and --until.
	Predicate Kind = iota
	// Value expressions evaluate to a scalar or a list of scalars, the indexed
	// values of a computed index: --indexer NAME=EXPR.
	Value
)

// String returns the kind's name as the documentation uses it.
func (k Kind) String() string {
	switch k {
	case Predicate:
		return "predicate"
	case Value:
		return "value"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// DefaultCostLimit bounds the cost of one evaluation. It is the Kubernetes API
// server's per-call limit for validation rules (celconfig.PerCallLimit).
const DefaultCostLimit uint64 = 1000000

// interruptCheckFrequency is how many comprehension iterations pass between
// two looks at the context when the context can be cancelled.
const interruptCheckFrequency = 100

// Names of the variables an expression sees.
const (
	objectVar = "object"
	nowVar    = "now"
)

var (
	envOnce sync.Once
	baseEnv *cel.Env
	envErr  error
)

// env returns the shared environment, built on first use so that commands
// without expressions do not pay for it.
func env() (*cel.Env, error) {
	envOnce.Do(func() {
		baseEnv, envErr = cel.NewEnv(
			cel.Variable(objectVar, cel.DynType),
			cel.Variable(nowVar, cel.TimestampType),
			// As k8s.io/apiserver/pkg/cel/environment's base environment.
			cel.HomogeneousAggregateLiterals(),
			cel.EagerlyValidateDeclarations(true),
			cel.DefaultUTCTimeZone(true),
			cel.CrossTypeNumericComparisons(true),
			cel.OptionalTypes(),
			cel.ASTValidators(
				cel.ValidateDurationLiterals(),
				cel.ValidateTimestampLiterals(),
				cel.ValidateRegexLiterals(),
				cel.ValidateHomogeneousAggregateLiterals(),
			),
			cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
			ext.Strings(ext.StringsVersion(2)),
			ext.Sets(),
			ext.TwoVarComprehensions(),
			ext.Lists(ext.ListsVersion(3)),
			library.URLs(),
			library.Regex(),
			library.Lists(library.ListsVersion(1)),
			library.Quantity(),
			library.IP(),
			library.CIDR(),
			library.Format(),
			library.SemverLib(library.SemverVersion(1)),
		)
	})
	return baseEnv, envErr
}

// Program is a compiled, type-checked expression. It is safe for concurrent use.
type Program struct {
	flag string
	src  string
	kind Kind
	prg  cel.Program
	// parts converts an object to the parts of it the expression reads.
	parts *object.Projection
}

// Flag returns the flag the expression came from, as given to Compile.
func (p *Program) Flag() string { return p.flag }

// Source returns the expression's text.
func (p *Program) Source() string { return p.src }

// Kind returns what the expression evaluates to.
func (p *Program) Kind() Kind { return p.kind }

// Issue is one compile error at a position in the expression.
type Issue struct {
	// Line and Column are 1-based; Column counts code points.
	Line, Column int
	Message      string
}

// CompileError is a syntax or type error in an expression, before any object
// is seen. Its Error is one line per issue: "FLAG: LINE:COLUMN: MESSAGE".
type CompileError struct {
	Flag   string
	Issues []Issue
}

func (e *CompileError) Error() string {
	lines := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		lines[i] = fmt.Sprintf("%s: %d:%d: %s", e.Flag, is.Line, is.Column, is.Message)
	}
	return strings.Join(lines, "\n")
}

// Compile parses and type-checks src, given to flag (say "--filter", used in
// errors), as an expression of the given kind, and plans it with the cost
// limit. Errors are *CompileError.
func Compile(flag, src string, kind Kind) (*Program, error) {
	return CompileWithLimit(flag, src, kind, DefaultCostLimit)
}

// CompileWithLimit is Compile with a cost limit other than DefaultCostLimit.
func CompileWithLimit(flag, src string, kind Kind, costLimit uint64) (*Program, error) {
	e, err := env()
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	ast, iss := e.Compile(src)
	if iss.Err() != nil {
		ce := &CompileError{Flag: flag}
		for _, ie := range iss.Errors() {
			ce.Issues = append(ce.Issues, Issue{
				Line:    max(ie.Location.Line(), 1),
				Column:  max(ie.Location.Column()+1, 1),
				Message: strings.TrimSuffix(ie.Message, " (in container '')"),
			})
		}
		return nil, ce
	}
	if msg := checkResultType(ast.OutputType(), kind); msg != "" {
		return nil, &CompileError{Flag: flag, Issues: []Issue{{Line: 1, Column: 1, Message: msg}}}
	}
	prg, err := e.Program(ast,
		cel.EvalOptions(cel.OptOptimize),
		cel.CostLimit(costLimit),
		cel.CostTracking(&library.CostEstimator{}),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		cel.InterruptCheckFrequency(interruptCheckFrequency),
	)
	if err != nil {
		// Planning fails on what the checker let through, say a constant
		// regex that does not compile after optimisation.
		return nil, &CompileError{Flag: flag, Issues: []Issue{{Line: 1, Column: 1, Message: err.Error()}}}
	}
	return &Program{flag: flag, src: src, kind: kind, prg: prg, parts: object.NewProjection(objectPaths(ast.NativeRep()))}, nil
}

// checkResultType returns why t cannot be a result of kind, or "".
func checkResultType(t *cel.Type, kind Kind) string {
	switch kind {
	case Predicate:
		if t.IsExactType(types.BoolType) || t.IsExactType(types.DynType) {
			return ""
		}
		return fmt.Sprintf("expression has type %s, want bool", t)
	case Value:
		if valueType(t, true) {
			return ""
		}
		return fmt.Sprintf("expression has type %s, want a string, number, bool, timestamp, duration, quantity or a list of them", t)
	}
	return fmt.Sprintf("unknown kind %v", kind)
}

// valueType reports whether t can be an index value: a scalar, dyn, or, when
// outer, a list or optional of those.
func valueType(t *cel.Type, outer bool) bool {
	switch t.Kind() {
	case types.BoolKind, types.IntKind, types.UintKind, types.DoubleKind, types.StringKind,
		types.TimestampKind, types.DurationKind, types.DynKind, types.AnyKind, types.NullTypeKind:
		return true
	case types.ListKind:
		return outer && valueType(t.Parameters()[0], false)
	case types.OpaqueKind:
		return t.TypeName() == "optional_type" && outer && valueType(t.Parameters()[0], true)
	case types.StructKind:
		return t.TypeName() == apiservercel.QuantityType.TypeName()
	}
	return false
}

// EvalError is the failure of one evaluation on one object: a missing field, a
// result of the wrong type, the cost limit, or an interrupt.
type EvalError struct {
	Flag string
	Err  error
}

func (e *EvalError) Error() string { return e.Flag + ": " + e.Err.Error() }

func (e *EvalError) Unwrap() error { return e.Err }

// CostLimitExceeded reports whether the evaluation was stopped by the cost
// limit. Such an expression is likely to exceed it on every object, each time
// after spending the whole budget, far longer than an ordinary evaluation
// (BenchmarkCostLimit measures it), so a caller may stop evaluating it after
// the first.
func (e *EvalError) CostLimitExceeded() bool {
	var ce interpreter.EvalCancelledError
	return errors.As(e.Err, &ce) && ce.Cause == interpreter.CostLimitExceeded
}

// activation resolves the two variables without building a map per evaluation.
type activation struct {
	object any
	now    ref.Val
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case objectVar:
		return a.object, true
	case nowVar:
		return a.now, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// eval runs the program on obj at now: on the parts of it the expression
// reads, converted as ToObject converts them.
func (p *Program) eval(ctx context.Context, obj any, now time.Time) (ref.Val, error) {
	m, err := p.parts.Content(obj)
	if err != nil {
		return nil, &EvalError{Flag: p.flag, Err: err}
	}
	act := &activation{object: m, now: types.Timestamp{Time: now}}
	var out ref.Val
	if ctx != nil && ctx.Done() != nil {
		out, _, err = p.prg.ContextEval(ctx, act)
	} else {
		// A context that cannot be cancelled needs no interrupt checks,
		// which cost a context.WithCancel per evaluation.
		out, _, err = p.prg.Eval(act)
	}
	if err != nil {
		return nil, &EvalError{Flag: p.flag, Err: err}
	}
	return out, nil
}

// Match evaluates a Predicate on obj at now. An error is an *EvalError; the
// caller counts the object as not matching.
func (p *Program) Match(ctx context.Context, obj any, now time.Time) (bool, error) {
	if p.kind != Predicate {
		return false, fmt.Errorf("%s: Match on a %v expression", p.flag, p.kind)
	}
	out, err := p.eval(ctx, obj, now)
	if err != nil {
		return false, err
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, &EvalError{Flag: p.flag, Err: fmt.Errorf("result is %s, want bool", typeName(out))}
	}
	return bool(b), nil
}

// Values evaluates a Value expression on obj at now and returns its indexed
// values in canonical string form (see the package documentation). An error is
// an *EvalError; the caller leaves the object out of the index.
func (p *Program) Values(ctx context.Context, obj any, now time.Time) ([]string, error) {
	if p.kind != Value {
		return nil, fmt.Errorf("%s: Values on a %v expression", p.flag, p.kind)
	}
	out, err := p.eval(ctx, obj, now)
	if err != nil {
		return nil, err
	}
	vals, err := appendValues(nil, out, true)
	if err != nil {
		return nil, &EvalError{Flag: p.flag, Err: err}
	}
	return vals, nil
}

var errNested = errors.New("a list in a list cannot be an index value")

// appendValues appends v's canonical strings to dst.
func appendValues(dst []string, v ref.Val, outer bool) ([]string, error) {
	switch v := v.(type) {
	case types.String:
		return append(dst, string(v)), nil
	case types.Bool, types.Int, types.Uint, types.Double, types.Timestamp, types.Duration:
		return append(dst, scalarString(v)), nil
	case types.Null:
		return dst, nil
	case *types.Optional:
		if !outer {
			break
		}
		if !v.HasValue() {
			return dst, nil
		}
		return appendValues(dst, v.GetValue(), true)
	case apiservercel.Quantity:
		return append(dst, v.Quantity.String()), nil
	case *apiservercel.Quantity:
		return append(dst, v.Quantity.String()), nil
	case traits.Lister:
		if !outer {
			return nil, errNested
		}
		n, ok := v.Size().(types.Int)
		if !ok {
			break
		}
		for i := types.Int(0); i < n; i++ {
			var err error
			if dst, err = appendValues(dst, v.Get(i), false); err != nil {
				return nil, err
			}
		}
		return dst, nil
	case *types.Err:
		return nil, v
	}
	return nil, fmt.Errorf("result is %s, want a string, number, bool, timestamp, duration, quantity or a list of them", typeName(v))
}

func typeName(v ref.Val) string {
	if t := v.Type(); t != nil {
		return t.TypeName()
	}
	return fmt.Sprintf("%T", v)
}

// scalarString is the canonical string of a CEL scalar.
func scalarString(v ref.Val) string {
	switch v := v.(type) {
	case types.Bool:
		return strconv.FormatBool(bool(v))
	case types.Int:
		return strconv.FormatInt(int64(v), 10)
	case types.Uint:
		return strconv.FormatUint(uint64(v), 10)
	case types.Double:
		return strconv.FormatFloat(float64(v), 'g', -1, 64)
	case types.Timestamp:
		return v.UTC().Format(time.RFC3339Nano)
	case types.Duration:
		return v.Duration.String()
	}
	return fmt.Sprint(v.Value())
}
