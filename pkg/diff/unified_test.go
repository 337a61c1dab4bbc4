package diff

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestUnified(t *testing.T) {
	const (
		cmOld = `{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": {"name": "web", "namespace": "shop", "resourceVersion": "1", "labels": {"app": "web"}},
			"data": {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6", "g": "7", "h": "8"}}`
		cmNew = `{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": {"name": "web", "namespace": "shop", "resourceVersion": "2", "labels": {"app": "shop"}},
			"data": {"a": "1", "b": "two", "c": "3", "d": "4", "e": "5", "f": "6", "g": "7", "i": "9"}}`
	)
	tests := []struct {
		name     string
		old, new string
		opts     func(t *testing.T) Options
		context  int
		color    bool
		want     string
	}{
		{
			name:    "config map",
			old:     cmOld,
			new:     cmNew,
			opts:    func(t *testing.T) Options { return Options{Ignore: DefaultIgnore()} },
			context: 1,
			want: `--- configmaps/shop/web (old)
+++ configmaps/shop/web (new)
@@ -3,3 +3,3 @@
   a: "1"
-  b: "2"
+  b: two
   c: "3"
@@ -9,3 +9,3 @@
   g: "7"
-  h: "8"
+  i: "9"
 kind: ConfigMap
@@ -13,3 +13,3 @@
   labels:
-    app: web
+    app: shop
   name: web
`,
		},
		{
			name:    "hunks merge when their context touches",
			old:     cmOld,
			new:     cmNew,
			opts:    func(t *testing.T) Options { return Options{Ignore: DefaultIgnore(), Only: paths(t, "data")} },
			context: 3,
			want: `--- configmaps/shop/web (old)
+++ configmaps/shop/web (new)
@@ -1,9 +1,9 @@
 data:
   a: "1"
-  b: "2"
+  b: two
   c: "3"
   d: "4"
   e: "5"
   f: "6"
   g: "7"
-  h: "8"
+  i: "9"
`,
		},
		{
			name:    "no context, insertion and deletion at the edges",
			old:     `{"b": 1, "c": 1}`,
			new:     `{"a": 1, "b": 1}`,
			context: 0,
			want: `--- configmaps/shop/web (old)
+++ configmaps/shop/web (new)
@@ -0,0 +1 @@
+a: 1
@@ -2 +2,0 @@
-c: 1
`,
		},
		{
			name:    "secret redacted",
			old:     `{"kind": "Secret", "data": {"password": "aHVudGVyMg==", "user": "YWRtaW4="}}`,
			new:     `{"kind": "Secret", "data": {"password": "c2VjcmV0", "user": "YWRtaW4=", "token": "dG9rZW4="}}`,
			opts:    func(t *testing.T) Options { return Options{Redact: paths(t, "data")} },
			context: 3,
			want: `--- configmaps/shop/web (old)
+++ configmaps/shop/web (new)
@@ -1,4 +1,5 @@
 data:
-  password: (hidden)
+  password: (hidden, changed)
+  token: (hidden)
   user: (hidden)
 kind: Secret
`,
		},
		{
			name:  "color and escapes",
			old:   `{"a": "x"}`,
			new:   `{"a": "\u202ey\u001b[2J"}`,
			color: true,
			want: "\x1b[1m--- configmaps/shop/web (old)\x1b[0m\n" +
				"\x1b[1m+++ configmaps/shop/web (new)\x1b[0m\n" +
				"\x1b[36m@@ -1 +1 @@\x1b[0m\n" +
				"\x1b[31m-a: x\x1b[0m\n" +
				"\x1b[32m+a: \"\\u202ey\\e[2J\"\x1b[0m\n",
		},
		{
			name: "ignored changes only",
			old:  cmOld,
			new:  strings.Replace(cmOld, `"resourceVersion": "1"`, `"resourceVersion": "2"`, 1),
			opts: func(t *testing.T) Options { return Options{Ignore: DefaultIgnore()} },
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts Options
			if tt.opts != nil {
				opts = tt.opts(t)
			}
			var b strings.Builder
			err := Unified(&b, "configmaps/shop/web (old)", "configmaps/shop/web (new)", obj(t, tt.old), obj(t, tt.new), opts, tt.context, tt.color)
			if err != nil {
				t.Fatalf("Unified() = %v, want nil", err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("Unified() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestUnifiedError(t *testing.T) {
	err := Unified(failingWriter{}, "a", "b", obj(t, `{"a": 1}`), obj(t, `{"a": 2}`), Options{}, 3, false)
	if want := "writing diff: disk full"; err == nil || err.Error() != want {
		t.Errorf("Unified(failing writer) = %v, want %s", err, want)
	}
}

func TestUnifiedCharactersYAMLRejects(t *testing.T) {
	old := obj(t, `{"a": "x"}`)
	new := obj(t, `{"a": "\u007f\u0080\u0085\ufeff\u2028", "k\u009b": ["\u007f"], "cfg": "line 1\nline 2\n"}`)
	var b strings.Builder
	if err := Unified(&b, "old", "new", old, new, Options{}, 3, false); err != nil {
		t.Fatalf("Unified() = %v, want nil", err)
	}
	want := `--- old
+++ new
@@ -1 +1,6 @@
-a: x
+a: \u007f\u0080\u0085\ufeff\u2028
+cfg: |
+  line 1
+  line 2
+k\u009b:
+- \u007f
`
	if got := b.String(); got != want {
		t.Errorf("Unified() =\n%s\nwant\n%s", got, want)
	}
}

func TestUnifiedFallsBackToJSON(t *testing.T) {
	long := strings.Repeat("k", 1100) // YAML refuses keys this long
	old := map[string]interface{}{"a": "x", long: int64(1)}
	new := map[string]interface{}{"a": "y", long: int64(1)}
	var b strings.Builder
	if err := Unified(&b, "old", "new", old, new, Options{}, 1, false); err != nil {
		t.Fatalf("Unified() = %v, want nil", err)
	}
	want := `--- old
+++ new
@@ -1,3 +1,3 @@
 {
-  "a": "x",
+  "a": "y",
   "` + long[:997] + `… (1107 bytes)
`
	if got := b.String(); got != want {
		t.Errorf("Unified() =\n%s\nwant\n%s", got, want)
	}
}

// applyUnified applies a unified diff as writeUnified writes it to a, the way
// patch(1) would, checking every hunk header and context line on the way.
func applyUnified(t *testing.T, a []string, diff string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		t.Fatalf("diff without headers:\n%s", diff)
	}
	var out []string
	next := 0 // next line of a to copy
	for i := 2; i < len(lines); {
		var aStart, aCount, bStart, bCount int
		header := strings.NewReplacer(",", " ", "@@", "", "-", "", "+", "").Replace(lines[i])
		nums := strings.Fields(header)
		parse := func(s string) int {
			var n int
			if _, err := fmt.Sscan(s, &n); err != nil {
				t.Fatalf("hunk header %q: %v", lines[i], err)
			}
			return n
		}
		switch len(nums) {
		case 2:
			aStart, aCount, bStart, bCount = parse(nums[0]), 1, parse(nums[1]), 1
		case 3:
			// One of the counts is given; which one shows in the header.
			if strings.Contains(strings.Split(lines[i], " +")[0], ",") {
				aStart, aCount, bStart, bCount = parse(nums[0]), parse(nums[1]), parse(nums[2]), 1
			} else {
				aStart, aCount, bStart, bCount = parse(nums[0]), 1, parse(nums[1]), parse(nums[2])
			}
		case 4:
			aStart, aCount, bStart, bCount = parse(nums[0]), parse(nums[1]), parse(nums[2]), parse(nums[3])
		default:
			t.Fatalf("bad hunk header %q", lines[i])
		}
		if aCount > 0 {
			aStart-- // 1-based, or the line before an empty range
		}
		if bCount > 0 {
			bStart--
		}
		if aStart < next {
			t.Fatalf("hunk %q overlaps the previous one", lines[i])
		}
		out = append(out, a[next:aStart]...)
		if len(out) != bStart {
			t.Fatalf("hunk %q starts at new line %d, want %d", lines[i], bStart, len(out))
		}
		next = aStart
		i++
		gotA, gotB := 0, 0
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "@@"); i++ {
			l := lines[i]
			switch l[0] {
			case ' ':
				if a[next] != l[1:] {
					t.Fatalf("context %q, want %q", l[1:], a[next])
				}
				out = append(out, l[1:])
				next++
				gotA++
				gotB++
			case '-':
				if a[next] != l[1:] {
					t.Fatalf("removed %q, want %q", l[1:], a[next])
				}
				next++
				gotA++
			case '+':
				out = append(out, l[1:])
				gotB++
			}
		}
		if gotA != aCount || gotB != bCount {
			t.Fatalf("hunk has %d old and %d new lines, header says %d and %d", gotA, gotB, aCount, bCount)
		}
	}
	return append(out, a[next:]...)
}

func TestWriteUnifiedApplies(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	randomLines := func() []string {
		l := make([]string, rng.Intn(30))
		for i := range l {
			l[i] = string(rune('a' + rng.Intn(5)))
		}
		return l
	}
	for i := 0; i < 1000; i++ {
		a, b := randomLines(), randomLines()
		for context := 0; context <= 3; context++ {
			var out strings.Builder
			if err := writeUnified(&out, "a", "b", a, b, context, false); err != nil {
				t.Fatalf("writeUnified() = %v, want nil", err)
			}
			if out.Len() == 0 {
				if strings.Join(a, "\n") != strings.Join(b, "\n") {
					t.Fatalf("writeUnified(%q, %q) wrote nothing, want a diff", a, b)
				}
				continue
			}
			if got := applyUnified(t, a, out.String()); strings.Join(got, "\n") != strings.Join(b, "\n") {
				t.Fatalf("applying writeUnified(%q, %q, context %d) =\n%s\ngives %q, want %q", a, b, context, out.String(), got, b)
			}
		}
	}
}

// TestUnifiedShortensLongLines changes one byte of long single-line values:
// the diff shows the start of each line and the bytes around the change,
// not the whole value.
func TestUnifiedShortensLongLines(t *testing.T) {
	blob := strings.Repeat("0123456789abcdef", 2500) // 40,000 bytes
	middle := blob[:20000] + "X" + blob[20001:]
	wide := strings.Repeat("日本語", 1000) // 9,000 bytes, 3 per rune
	tests := []struct {
		name     string
		old, new string
		// Each removed and added line must start with its prefix, hold
		// every part, and end with its suffix.
		oldPrefix, newPrefix string
		oldParts, newParts   []string
		oldSuffix, newSuffix string
	}{
		{
			name: "change in the middle", old: blob, new: middle,
			oldPrefix: "-blob: " + blob[:100], newPrefix: "+blob: " + blob[:100],
			oldParts: []string{"…", blob[19950:20050]}, newParts: []string{"…", middle[19950:20050]},
			oldSuffix: "… (40006 bytes)", newSuffix: "… (40006 bytes)",
		},
		{
			name: "change near the start", old: blob, new: "X" + blob[1:],
			oldPrefix: "-blob: " + blob[:900], newPrefix: "+blob: X" + blob[1:900],
			oldSuffix: "… (40006 bytes)", newSuffix: "… (40006 bytes)",
		},
		{
			name: "change at the end, cut on rune boundaries", old: wide, new: wide[:len(wide)-3] + "!",
			oldPrefix: "-blob: " + wide[:99], newPrefix: "+blob: " + wide[:99],
			oldParts: []string{"…"}, newParts: []string{"…"},
			oldSuffix: wide[len(wide)-90:] + " (9006 bytes)", newSuffix: wide[len(wide)-90:len(wide)-3] + "! (9004 bytes)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			err := Unified(&b, "old", "new", map[string]interface{}{"blob": tt.old}, map[string]interface{}{"blob": tt.new}, Options{}, 3, false)
			if err != nil {
				t.Fatalf("Unified() = %v, want nil", err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if len(lines) != 5 {
				t.Fatalf("Unified() has %d lines, want 5:\n%s", len(lines), b.String())
			}
			for _, c := range []struct {
				line, prefix, suffix string
				parts                []string
			}{{lines[3], tt.oldPrefix, tt.oldSuffix, tt.oldParts}, {lines[4], tt.newPrefix, tt.newSuffix, tt.newParts}} {
				if !strings.HasPrefix(c.line, c.prefix) || !strings.HasSuffix(c.line, c.suffix) {
					t.Errorf("Unified() line\n%s\nwant prefix\n%s\nand suffix\n%s", c.line, c.prefix, c.suffix)
				}
				for _, part := range c.parts {
					if !strings.Contains(c.line, part) {
						t.Errorf("Unified() line\n%s\ndoes not show the change:\n%s", c.line, part)
					}
				}
				if len(c.line) > MaxLineBytes+32 || !utf8.ValidString(c.line) {
					t.Errorf("line of %d bytes (valid UTF-8: %v), want at most %d: %.200q", len(c.line), utf8.ValidString(c.line), MaxLineBytes+32, c.line)
				}
			}
		})
	}
}
