//go:build !unix

package server

func umaskOwnerOnly() func() { return func() {} }
