package mcp

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"

	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
)

// warmEnv returns the warm engines of target's context, building them on
// the first call: its API server source (Secrets without their values), its
// discovery kept in memory, and an empty pool whose informers start the
// first time a query asks for their type and stay synced. Each informer is
// fed from the memory of the warm cache process of the context's identity
// when one of this build runs as it starts (a type the cache declines, or
// every type once the cache is gone, from the API server), and from the API
// server otherwise. Building them sends no request to the API server; a
// failure is returned and not kept, so a later call tries again.
func (s *Server) warmEnv(t targets.Target) (*engines.ServeEnv, error) {
	s.mu.Lock()
	env, ok := s.envs[t.Name]
	s.mu.Unlock()
	if ok {
		return env, nil
	}
	env, err := engines.NewServeEnv(t.ConfigFlags, s.opts.EvictAfter, func(source engine.Source) engine.Source {
		return valuelessSecrets{Source: cacheOrDirect{Source: source, target: t}}
	})
	if err != nil {
		return nil, fmt.Errorf("context %q: %w", t.Name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if built, ok := s.envs[t.Name]; ok {
		env.Shutdown()
		return built, nil
	}
	s.envs[t.Name] = env
	return env, nil
}

// cacheOrDirect is an engine.Source whose feeds read the warm cache process
// of target's identity when one of this build runs at the moment a feed is
// made, and the API server (Source) otherwise: a cache started after the
// server feeds the informers started after it.
type cacheOrDirect struct {
	engine.Source
	target targets.Target
}

// Feed implements engine.Source.
func (s cacheOrDirect) Feed(mapping *meta.RESTMapping, namespace string, full bool) (engine.Feed, error) {
	if socket := runningCache(s.target); socket != "" {
		return (&client.Source{Socket: socket, Direct: s.Source}).Feed(mapping, namespace, full)
	}
	return s.Source.Feed(mapping, namespace, full)
}

// runningCache returns the socket of the warm cache process of t's
// identity when one of this build answers there (CacheIdentity.DialWarm),
// "" otherwise.
func runningCache(t targets.Target) string {
	id, err := engines.ResolveCacheIdentity(t.ConfigFlags)
	if err != nil {
		return ""
	}
	conn, err := id.DialWarm()
	if err != nil {
		klog.V(1).InfoS("mcp: not reading the warm cache", "context", t.Name, "reason", err)
	}
	if conn == nil {
		return ""
	}
	conn.Close()
	return id.Socket
}

// shutdownEnvs stops every context's informers.
func (s *Server) shutdownEnvs() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, env := range s.envs {
		env.Shutdown()
		delete(s.envs, name)
	}
}
