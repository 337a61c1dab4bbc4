package expr

import (
	"regexp"
	"strings"
	"sync"
)

// quotedRegexp matches a quoted string, and variableRegexp the variable
// object or now; each is compiled on first use.
var (
	quotedRegexp   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`) })
	variableRegexp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[^.\w@$])(?:object|now)\b`) })
)

// IsCEL tells a CEL expression from a JSONPath in a flag that takes either,
// as --indexer NAME=EXPR does. The rule, for the flag's help:
//
//	EXPR is JSONPath if it starts with '{' or '.' ({.spec.nodeName}, .spec.nodeName);
//	otherwise it is CEL if it names the variable object or now outside quotes
//	(object.spec.nodeName, quantity(object.spec.x.cpu).sign());
//	otherwise it is JSONPath in kubectl's relaxed form (spec.nodeName).
//
// A field named object or now is never mistaken: in JSONPath it follows a dot.
func IsCEL(src string) bool {
	s := strings.TrimSpace(src)
	if s == "" || s[0] == '{' || s[0] == '.' {
		return false
	}
	return variableRegexp().MatchString(quotedRegexp().ReplaceAllString(s, `""`))
}
