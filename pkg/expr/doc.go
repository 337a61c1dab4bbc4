// Package expr compiles and evaluates the CEL expressions that users give to
// --filter, --until and --indexer NAME=EXPR.
//
// # Variables
//
// An expression sees three variables:
//
//   - object (dyn): the object as the API returns it, a JSON-like map, the same
//     shape that `self` has at the root of a CRD validation rule without a
//     schema: object.metadata.name, object.spec.containers[0].image,
//     object.status.containerStatuses. Typed client-go objects are converted
//     with [ToObject]; unstructured objects are used as they are. A typed
//     object read from an informer cache has no apiVersion and kind: they are
//     in object only if the caller puts them there.
//   - now (google.protobuf.Timestamp): the time the caller passes to the
//     evaluation, one value for a whole query, so that every object is judged
//     against the same instant: now - timestamp(object.metadata.creationTimestamp) > duration('24h').
//   - usage (map of string to quantity): what the object uses, from the metrics API, when the
//     caller read it ([Guard.WithUsage]): usage.cpu in cores (a rate over the sample's window),
//     usage.memory the working set in bytes, for pods (their containers summed) and nodes. An
//     object without a sample has an empty map: has(usage.cpu) is false, and
//     usage.?cpu.orValue(quantity('0')) reads it as zero. [Program.ReadsUsage] tells whether an
//     expression refers to it, so that commands read the metrics API only then.
//
// # Functions
//
// The environment follows the Kubernetes API server's CEL environment
// (k8s.io/apiserver/pkg/cel/environment, base.go), built from the same
// libraries without linking the environment package itself:
//
//   - CEL's standard definitions, optional types (object.?spec.nodeName.orValue('none')),
//     cross-type numeric comparisons, two-variable comprehensions.
//   - cel-go's extensions: strings (version 2: split, lowerAscii, replace, format, ...),
//     sets (sets.contains, sets.intersects, sets.equivalent), lists (version 3:
//     flatten, slice, distinct, sort, lists.range, ...).
//   - Kubernetes' libraries (k8s.io/apiserver/pkg/cel/library): quantity
//     (quantity('100m'), isQuantity, isGreaterThan, isLessThan, compareTo,
//     add, sub, asInteger, asApproximateFloat, isInteger, sign), lists (isSorted,
//     sum, min, max, indexOf, lastIndexOf), regex (find, findAll), URLs (url,
//     isURL, getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery),
//     IP and CIDR (ip, isIP, cidr, isCIDR, containsIP, ...), format
//     (format.dns1123Label().validate(s), ...) and semver (semver, isSemver, ...).
//     The authorizer library is left out: there is no request to authorize.
//
// # Kinds
//
// A [Predicate] must type-check to bool, or to dyn and then evaluate to bool. A
// [Value] must type-check to a scalar (string, int, uint, double, bool,
// timestamp, duration, quantity), a list of scalars, an optional of either,
// or dyn; [Program.Values] turns the result into indexed values in this
// canonical string form:
//
//   - string: as is; bool: true or false; int and uint: decimal;
//   - double: strconv.FormatFloat(f, 'g', -1, 64), so 2.0 is "2" and 0.5 is "0.5";
//   - timestamp: RFC 3339 in UTC with as many fractional digits as needed;
//   - duration: Go's time.Duration.String, e.g. "1h30m0s";
//   - quantity: its canonical form, resource.Quantity.String, e.g. "100m";
//   - null and an optional with no value: no value (the object is not indexed);
//   - a list: one value per element, in order, duplicates kept, nulls skipped;
//     an empty list gives no value. Lists nested in lists are an error.
//
// # Errors
//
// A compile error ([*CompileError]) names the flag and the 1-based line and
// column of each issue, one issue a line:
//
//	--filter: 1:1: undeclared reference to 'objet'
//
// CEL's note on the (empty) container is dropped. An expression whose type cannot be
// the flag's result type is reported the same way at 1:1:
//
//	--filter: 1:1: expression has type string, want bool
//
// An evaluation error ([*EvalError]) is per object: a missing field
// ("no such key: limits"), a result of the wrong type at run time, or the cost
// limit. The caller treats it as false (a predicate) or no value (an index) for
// that object, and counts it with [Failures], which renders one line for all:
//
//	--filter: 3 objects counted as false after an evaluation error; first, on default/web-1: no such key: limits
//
// # Bounds
//
// Every evaluation is bounded by CEL's cost limit ([DefaultCostLimit], as the
// API server's per-call limit, with Kubernetes' cost estimator for the library
// functions), so an expression cannot hang the plugin; a cancellable context
// also interrupts it.
//
// # Cost
//
// An unstructured object is evaluated in place. A typed object is converted
// with [ToObject] on every evaluation, into the API's JSON form, and that
// conversion, not the expression, is most of what an evaluation on a typed
// cache costs. CEL's native Go type provider would be cheaper but would not
// give the API's form (metadata.creationTimestamp and quantities would be
// structs, inline fields nested), so it is not used. The environment is built
// once, on the first Compile; later Compiles reuse it. An evaluation that hits
// DefaultCostLimit has spent the whole budget before it stops.
// The benchmarks in this package measure each of these (go test -bench .
// ./pkg/expr); figures are in bench/README.md.
//
// # Concurrency
//
// A [*Program] is safe for concurrent use by several goroutines; [*Failures] too.
package expr
