package mcp

import (
	"fmt"

	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
)

// warmEnv returns the warm engines of target's context, building them on
// the first call: its API server source (Secrets without their values), its
// discovery kept in memory, and an empty pool whose informers start the
// first time a query asks for their type and stay synced. When a warm
// cache process of this build runs for the context's identity at that
// first call, the informers are fed from the cache's memory (each type it
// declines, or all of them once it is gone, from the API server). Building
// them sends no request to the API server; a failure is returned and not
// kept, so a later call tries again.
func (s *Server) warmEnv(t contextTarget) (*engines.ServeEnv, error) {
	s.mu.Lock()
	env, ok := s.envs[t.name]
	s.mu.Unlock()
	if ok {
		return env, nil
	}
	socket := runningCache(t)
	env, err := engines.NewServeEnv(t.configFlags, s.opts.EvictAfter, func(source engine.Source) engine.Source {
		if socket != "" {
			source = &client.Source{Socket: socket, Direct: source}
		}
		return valuelessSecrets{Source: source}
	})
	if err != nil {
		return nil, fmt.Errorf("context %q: %w", t.name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if built, ok := s.envs[t.name]; ok {
		env.Pool.Shutdown()
		return built, nil
	}
	s.envs[t.name] = env
	return env, nil
}

// runningCache returns the socket of the warm cache process of t's
// identity when one of this build answers there, "" otherwise.
func runningCache(t contextTarget) string {
	id, err := engines.ResolveCacheIdentity(t.configFlags)
	if err != nil || client.CheckDir(id.Dir) != nil {
		return ""
	}
	conn, err := client.Dial(id.Socket, engines.DialTimeout)
	if err != nil {
		return ""
	}
	defer conn.Close()
	if other := engines.OtherBuild(conn.Hello); other != "" {
		klog.V(1).InfoS("mcp: not reading the warm cache", "context", t.name, "reason", other)
		return ""
	}
	return id.Socket
}

// shutdownEnvs stops every context's informers.
func (s *Server) shutdownEnvs() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, env := range s.envs {
		env.Pool.Shutdown()
		delete(s.envs, name)
	}
}
