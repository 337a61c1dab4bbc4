//go:build tools

// Package tools records the binaries this module builds, so that go mod tidy
// keeps their dependencies.
//
// staticcheck stays at the newest release whose requirements the control
// plane's already meet (v0.8.1): a newer one would raise golang.org/x/net,
// x/crypto, x/sys and others under kube-apiserver and etcd too.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "honnef.co/go/tools/cmd/staticcheck"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
