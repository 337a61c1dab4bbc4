package mcp

import (
	"fmt"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
)

// warmEnv returns the warm engines of target's context, building them on
// the first call: its API server source (Secrets without their values), its
// discovery kept in memory, and an empty pool whose informers start the
// first time a query asks for their type and stay synced. Building them
// sends no request; a failure is returned and not kept, so a later call
// tries again.
func (s *Server) warmEnv(t contextTarget) (*engines.ServeEnv, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if env, ok := s.envs[t.name]; ok {
		return env, nil
	}
	env, err := engines.NewServeEnv(t.configFlags, s.opts.EvictAfter, func(source engine.Source) engine.Source {
		return valuelessSecrets{Source: source}
	})
	if err != nil {
		return nil, fmt.Errorf("context %q: %w", t.name, err)
	}
	s.envs[t.name] = env
	return env, nil
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
