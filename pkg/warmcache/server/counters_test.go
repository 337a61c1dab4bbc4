package server

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// TestServerCountsRuns runs concurrent requests, some answered (with exit
// codes 0 and 1) and some declined, and checks the Status counters.
func TestServerCountsRuns(t *testing.T) {
	tests := []struct {
		name                   string
		args                   []string // one request each: "ok", "fail" or "decline"
		wantAnswered, wantDecl int64
	}{
		{"none", nil, 0, 0},
		{"answered only", []string{"ok", "ok", "fail"}, 3, 0},
		{"mixed, concurrent", []string{"ok", "decline", "fail", "decline", "ok", "ok", "ok", "decline"}, 5, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			socket, _ := serve(t, func(_ context.Context, req protocol.Request, stdout, _ io.Writer) Outcome {
				switch req.Query.Types {
				case "decline":
					return Outcome{Fallback: &protocol.Fallback{Reason: "not served"}}
				case "fail":
					return Outcome{Exit: protocol.Exit{Code: 1, Error: "failed"}}
				}
				fmt.Fprintln(stdout, "pod/a")
				return Outcome{}
			}, 0)
			var wg sync.WaitGroup
			for _, arg := range tt.args {
				wg.Go(func() {
					conn, err := client.Dial(socket, 5*time.Second)
					if err != nil {
						t.Error(err)
						return
					}
					defer conn.Close()
					if _, err := conn.Collect(context.Background(), protocol.Request{Query: &protocol.Query{Types: arg}}, 10*time.Second, io.Discard, io.Discard); err != nil {
						t.Errorf("Run(%s) = %v", arg, err)
					}
				})
			}
			wg.Wait()
			conn, err := client.Dial(socket, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			st, err := conn.Status(5 * time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if st.Answered != tt.wantAnswered || st.Declined != tt.wantDecl {
				t.Errorf("status answered, declined = %d, %d; want %d, %d", st.Answered, st.Declined, tt.wantAnswered, tt.wantDecl)
			}
		})
	}
}
