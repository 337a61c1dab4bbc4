//go:build !unix

package cacheserver

func umaskOwnerOnly() func() { return func() {} }
