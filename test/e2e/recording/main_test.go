// Package recording tests kubectl informer record against objects made by
// real controllers (a cluster with kube-controller-manager, kube-scheduler
// and kwok nodes), reading what it wrote with pkg/recording.
package recording

import (
	"testing"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(3)) }
