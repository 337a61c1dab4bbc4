package index

import "testing"

func TestParseSelector(t *testing.T) {
	tests := []struct {
		name    string
		flag    string
		in      string
		want    Selector
		wantErr string
	}{
		{name: "node", flag: "--index", in: "node=worker-1", want: Selector{Name: "node", Value: "worker-1"}},
		{name: "empty value finds pending pods", flag: "--index", in: "node=", want: Selector{Name: "node"}},
		{name: "label", flag: "--where", in: "label:app=web", want: Selector{Name: "label:app", Value: "web"}},
		{name: "value with '='", flag: "--index", in: "img=a=b", want: Selector{Name: "img", Value: "a=b"}},
		{name: "value with spaces", flag: "--index", in: "phase= Running ",
			want: Selector{Name: "phase", Value: " Running "}},

		{name: "no '='", flag: "--index", in: "node", wantErr: `--index needs NAME=VALUE, got "node"`},
		{name: "empty name", flag: "--where", in: "=worker-1", wantErr: `--where needs NAME=VALUE, got "=worker-1"`},
		{name: "empty", flag: "--index", in: "", wantErr: `--index needs NAME=VALUE, got ""`},
		{name: "only '='", flag: "--index", in: "=", wantErr: `--index needs NAME=VALUE, got "="`},
		{name: "flag without dashes", flag: "index", in: "node", wantErr: `--index needs NAME=VALUE, got "node"`},
		{name: "short flag", flag: "-i", in: "node", wantErr: `-i needs NAME=VALUE, got "node"`},
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
			if err != nil || got != tt.want {
				t.Errorf("ParseSelector(%q, %q) = %+v, %v, want %+v, nil", tt.flag, tt.in, got, err, tt.want)
			}
			if got.String() != tt.in {
				t.Errorf("ParseSelector(%q, %q).String() = %q, want %q", tt.flag, tt.in, got.String(), tt.in)
			}
		})
	}
}
