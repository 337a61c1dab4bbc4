package index

import (
	"reflect"
	"strings"
	"testing"
)

const syntaxHint = "; want NAME=VALUE, NAME!=VALUE, 'NAME in (V1,V2)', 'NAME notin (V1,V2)', NAME or '!NAME'"

func TestParseSelector(t *testing.T) {
	tests := []struct {
		name       string
		flag       string
		in         string
		want       Selector
		wantString string // String() of the result when it differs from in
		wantErr    string
	}{
		{name: "node", flag: "--index", in: "node=worker-1",
			want: Selector{Name: "node", Operator: Equals, Values: []string{"worker-1"}}},
		{name: "empty value finds pending pods", flag: "--index", in: "node=",
			want: Selector{Name: "node", Operator: Equals, Values: []string{""}}},
		{name: "label", flag: "--where", in: "label:app=web",
			want: Selector{Name: "label:app", Operator: Equals, Values: []string{"web"}}},
		{name: "annotation with prefix", flag: "--index", in: "annotation:example.com/team=payments",
			want: Selector{Name: "annotation:example.com/team", Operator: Equals, Values: []string{"payments"}}},
		{name: "image value", flag: "--index", in: "image=registry.example.com/web:v1",
			want: Selector{Name: "image", Operator: Equals, Values: []string{"registry.example.com/web:v1"}}},
		{name: "value with '='", flag: "--index", in: "img=a=b",
			want: Selector{Name: "img", Operator: Equals, Values: []string{"a=b"}}},
		{name: "value with spaces", flag: "--index", in: "phase= Running ",
			want: Selector{Name: "phase", Operator: Equals, Values: []string{" Running "}}},
		{name: "value with parentheses and commas", flag: "--index", in: "img=a (b,c)",
			want: Selector{Name: "img", Operator: Equals, Values: []string{"a (b,c)"}}},
		{name: "double equals", flag: "--index", in: "node==worker-1", wantString: "node=worker-1",
			want: Selector{Name: "node", Operator: Equals, Values: []string{"worker-1"}}},
		{name: "value starting with '='", flag: "--index", in: "img===x",
			want: Selector{Name: "img", Operator: Equals, Values: []string{"=x"}}},
		{name: "spaces around name", flag: "--index", in: "  node =worker-1", wantString: "node=worker-1",
			want: Selector{Name: "node", Operator: Equals, Values: []string{"worker-1"}}},

		{name: "not equals", flag: "--index", in: "node!=worker-1",
			want: Selector{Name: "node", Operator: NotEquals, Values: []string{"worker-1"}}},
		{name: "not equals empty finds scheduled pods", flag: "--index", in: "node!=",
			want: Selector{Name: "node", Operator: NotEquals, Values: []string{""}}},
		{name: "not equals owner", flag: "--where", in: "owner!=ReplicaSet/web-5d9c7",
			want: Selector{Name: "owner", Operator: NotEquals, Values: []string{"ReplicaSet/web-5d9c7"}}},
		{name: "not equals value starting with '='", flag: "--index", in: "img!==x",
			want: Selector{Name: "img", Operator: NotEquals, Values: []string{"=x"}}},

		{name: "in", flag: "--index", in: "node in (worker-1,worker-2)",
			want: Selector{Name: "node", Operator: In, Values: []string{"worker-1", "worker-2"}}},
		{name: "in sorts, trims and drops duplicates", flag: "--index", in: "node in( b , a,b )",
			wantString: "node in (a,b)", want: Selector{Name: "node", Operator: In, Values: []string{"a", "b"}}},
		{name: "in with images", flag: "--index", in: "image in (registry.example.com/web:v1,nginx:1.27)",
			wantString: "image in (nginx:1.27,registry.example.com/web:v1)",
			want:       Selector{Name: "image", Operator: In, Values: []string{"nginx:1.27", "registry.example.com/web:v1"}}},
		{name: "in with an empty value", flag: "--index", in: "node in (worker-1,)", wantString: "node in (,worker-1)",
			want: Selector{Name: "node", Operator: In, Values: []string{"", "worker-1"}}},
		{name: "in () is the empty value", flag: "--index", in: "node in ()",
			want: Selector{Name: "node", Operator: In, Values: []string{""}}},
		{name: "in with '=' in a value", flag: "--index", in: "img in (a=b)",
			want: Selector{Name: "img", Operator: In, Values: []string{"a=b"}}},
		{name: "notin", flag: "--where", in: "phase notin (Running,Succeeded)",
			want: Selector{Name: "phase", Operator: NotIn, Values: []string{"Running", "Succeeded"}}},
		{name: "notin with trailing spaces", flag: "--where", in: "label:app notin (web) ", wantString: "label:app notin (web)",
			want: Selector{Name: "label:app", Operator: NotIn, Values: []string{"web"}}},
		{name: "index named in", flag: "--index", in: "in in (in)",
			want: Selector{Name: "in", Operator: In, Values: []string{"in"}}},

		{name: "exists", flag: "--index", in: "node", want: Selector{Name: "node", Operator: Exists}},
		{name: "exists label", flag: "--index", in: " label:app.kubernetes.io/name ", wantString: "label:app.kubernetes.io/name",
			want: Selector{Name: "label:app.kubernetes.io/name", Operator: Exists}},
		{name: "does not exist", flag: "--index", in: "!node", want: Selector{Name: "node", Operator: DoesNotExist}},
		{name: "does not exist with spaces", flag: "--index", in: " ! label:app ", wantString: "!label:app",
			want: Selector{Name: "label:app", Operator: DoesNotExist}},

		{name: "empty", flag: "--index", in: "", wantErr: `--index "": missing index name` + syntaxHint},
		{name: "only spaces", flag: "--index", in: "  ", wantErr: `--index "  ": missing index name` + syntaxHint},
		{name: "empty name", flag: "--where", in: "=worker-1",
			wantErr: `--where "=worker-1": want an index name at column 1, got "="` + syntaxHint},
		{name: "only '='", flag: "--index", in: "=", wantErr: `--index "=": want an index name at column 1, got "="` + syntaxHint},
		{name: "only '!='", flag: "--index", in: "!=x",
			wantErr: `--index "!=x": want an index name at column 1, got "!"` + syntaxHint},
		{name: "only '!'", flag: "--index", in: "!", wantErr: `--index "!": missing index name after "!" at column 2`},
		{name: "'!' before '='", flag: "--index", in: "!=", wantErr: `--index "!=": want an index name at column 1, got "!"` + syntaxHint},
		{name: "double '!'", flag: "--index", in: "!!node",
			wantErr: `--index "!!node": want an index name after "!" at column 2, got "!"` + syntaxHint},
		{name: "does not exist with a value", flag: "--index", in: "!node=x",
			wantErr: `--index "!node=x": unexpected "=x" after "!node" at column 6`},
		{name: "'!' without '='", flag: "--index", in: "node!x",
			wantErr: `--index "node!x": unexpected "!" at column 5` + syntaxHint},
		{name: "greater than", flag: "--index", in: "node>3", wantErr: `--index "node>3": unexpected ">" at column 5` + syntaxHint},
		{name: "non-ASCII name", flag: "--index", in: "nöde=x", wantErr: `--index "nöde=x": unexpected "ö" at column 2` + syntaxHint},
		{name: "invalid UTF-8", flag: "--index", in: "n\xff=x", wantErr: `--index "n\xff=x": unexpected "\xff" at column 2` + syntaxHint},
		{name: "space inside name", flag: "--index", in: "label:bad key=x",
			wantErr: `--index "label:bad key=x": want =, ==, !=, in or notin after "label:bad" at column 11, got "key=x"`},
		{name: "unknown operator word", flag: "--index", in: "node exists",
			wantErr: `--index "node exists": want =, ==, !=, in or notin after "node" at column 6, got "exists"`},
		{name: "operator word case matters", flag: "--index", in: "node IN (a)",
			wantErr: `--index "node IN (a)": want =, ==, !=, in or notin after "node" at column 6, got "IN (a)"`},
		{name: "in without parentheses", flag: "--index", in: "node in a",
			wantErr: `--index "node in a": want "(" after "in" at column 9`},
		{name: "in at the end", flag: "--index", in: "node notin",
			wantErr: `--index "node notin": want "(" after "notin" at column 11`},
		{name: "missing ')'", flag: "--index", in: "node in (a", wantErr: `--index "node in (a": missing ")" at column 11`},
		{name: "missing ')' after a comma", flag: "--where", in: "node notin (a,",
			wantErr: `--where "node notin (a,": missing ")" at column 15`},
		{name: "nested '('", flag: "--index", in: "node in (a(b))",
			wantErr: `--index "node in (a(b))": unexpected "(" at column 11; values in parentheses cannot contain "(" or ")"`},
		{name: "text after ')'", flag: "--index", in: "node in (a) b",
			wantErr: `--index "node in (a) b": unexpected "b" after ")" at column 13`},
		{name: "two selectors in one flag", flag: "--index", in: "node in (a),phase=Running",
			wantErr: `--index "node in (a),phase=Running": unexpected ",phase=Running" after ")" at column 12`},
		{name: "flag without dashes", flag: "index", in: "node in (a", wantErr: `--index "node in (a": missing ")" at column 11`},
		{name: "short flag", flag: "-i", in: "node>", wantErr: `-i "node>": unexpected ">" at column 5` + syntaxHint},
		{name: "no flag", flag: "", in: "node>", wantErr: `flag "node>": unexpected ">" at column 5` + syntaxHint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSelector(tt.flag, tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("ParseSelector(%q, %q) error = %v, want %s", tt.flag, tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSelector(%q, %q) = %#v, %v, want %#v, nil", tt.flag, tt.in, got, err, tt.want)
			}
			wantString := tt.wantString
			if wantString == "" {
				wantString = tt.in
			}
			if got.String() != wantString {
				t.Errorf("ParseSelector(%q, %q).String() = %q, want %q", tt.flag, tt.in, got.String(), wantString)
			}
			again, err := ParseSelector(tt.flag, got.String())
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Errorf("ParseSelector(%q, %q) = %#v, %v, want %#v, nil", tt.flag, got.String(), again, err, got)
			}
		})
	}
}

func TestMatches(t *testing.T) {
	images := []string{"nginx:1.27", "envoy:1.30"}
	tests := []struct {
		selector string
		values   []string
		want     bool
	}{
		{"image=nginx:1.27", images, true},
		{"image=busybox", images, false},
		{"image=busybox", nil, false},
		{"node=", []string{""}, true},
		{"node=", []string{"worker-1"}, false},
		{"node=", nil, false},

		{"image!=nginx:1.27", images, false},
		{"image!=busybox", images, true},
		{"image!=busybox", nil, true},
		{"node!=", []string{""}, false},
		{"node!=", []string{"worker-1"}, true},

		{"image in (busybox,envoy:1.30)", images, true},
		{"image in (busybox,debug:1)", images, false},
		{"image in (busybox)", nil, false},
		{"node in ()", []string{""}, true},

		{"image notin (busybox,envoy:1.30)", images, false},
		{"image notin (busybox,debug:1)", images, true},
		{"image notin (busybox)", nil, true},

		{"image", images, true},
		{"node", []string{""}, true},
		{"image", nil, false},
		{"image", []string{}, false},

		{"!image", images, false},
		{"!node", []string{""}, false},
		{"!image", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			sel, err := ParseSelector("--where", tt.selector)
			if err != nil {
				t.Fatalf("ParseSelector(%q) = %v, want nil", tt.selector, err)
			}
			if got := sel.Matches(tt.values); got != tt.want {
				t.Errorf("%s.Matches(%q) = %v, want %v", sel, tt.values, got, tt.want)
			}
		})
	}
	if (Selector{Name: "image", Operator: "~", Values: images}).Matches(images) {
		t.Errorf("Matches with operator %q = true, want false", "~")
	}
}

func TestSelectorStringOfUnknownOperator(t *testing.T) {
	sel := Selector{Name: "node", Operator: "gt", Values: []string{"1"}}
	if got, want := sel.String(), "node gt (1)"; got != want {
		t.Errorf("%#v.String() = %q, want %q", sel, got, want)
	}
	if _, err := ParseSelector("--index", sel.String()); err == nil || !strings.Contains(err.Error(), "gt") {
		t.Errorf("ParseSelector(%q) error = %v, want one naming %q", sel.String(), err, "gt")
	}
}
