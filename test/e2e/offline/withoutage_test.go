package offline

import "testing"

func TestWithoutAge(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "ages of different widths",
			in: "NAME    READY   AGE     IP\n" +
				"web-1   1/1     2m30s   10.0.0.1\n" +
				"web-2   1/1     9s      10.0.0.2\n",
			want: "NAME    READY   AGE   IP\n" +
				"web-1   1/1     AGE   10.0.0.1\n" +
				"web-2   1/1     AGE   10.0.0.2\n",
		},
		{
			name: "age last, two tables",
			in: "NAME                  READY   AGE\ndeployment.apps/web   2/2     115s\n\n" +
				"NAME                  DESIRED   AGE\nreplicaset.apps/w-1   2         3m\n",
			want: "NAME                  READY   AGE\ndeployment.apps/web   2/2     AGE\n\n" +
				"NAME                  DESIRED   AGE\nreplicaset.apps/w-1   2         AGE\n",
		},
		{
			name: "empty cells before AGE (a tree)",
			in: "NAMESPACE   NAME             READY   STATUS    AGE\n" +
				"shop        Deployment/web   3/3               1h\n" +
				"shop        └─Pod/web-1      1/1     Running   59m\n",
			want: "NAMESPACE   NAME             READY   STATUS    AGE\n" +
				"shop        Deployment/web   3/3               AGE\n" +
				"shop        └─Pod/web-1      1/1     Running   AGE\n",
		},
		{
			name: "no AGE column: quantities stay",
			in:   "NODE     PODS         CPU REQUESTS\nnode-1   1/110 (0%)   370m (19%)\n",
			want: "NODE     PODS         CPU REQUESTS\nnode-1   1/110 (0%)   370m (19%)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withoutAge(tt.in); got != tt.want {
				t.Errorf("withoutAge(%q) =\n%s\nwant\n%s", tt.in, got, tt.want)
			}
		})
	}
}
