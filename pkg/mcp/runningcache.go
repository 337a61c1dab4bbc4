package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/query"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// collect answers q for target t: from the warm cache process of t's
// identity when one runs (cache start), is of this build, accepts the
// query and the query reads no Secrets (that process caches their values);
// otherwise from this server's own warm engines of t (env), with the query
// command's own code. by says which answered.
func (s *Server) collect(ctx context.Context, t targets.Target, env *engines.ServeEnv, q protocol.Query) (answer protocol.Answer, stderr, by string, err error) {
	if answer, stderr, by, ok, err := s.askRunningCache(ctx, t, env, q); ok {
		return answer, stderr, by, err
	}
	return collectOwn(ctx, env, q)
}

// collectOwn answers q with the query command's code over env's pool.
func collectOwn(ctx context.Context, env *engines.ServeEnv, q protocol.Query) (answer protocol.Answer, stderr, by string, err error) {
	var stdout, errOut bytes.Buffer
	outcome := query.CollectHandler(env)(ctx, protocol.Request{Kind: protocol.Collect, Query: &q}, &stdout, &errOut)
	switch {
	case outcome.Fallback != nil:
		return answer, "", "", fmt.Errorf("this query cannot be answered from shared informers: %s", outcome.Fallback.Reason)
	case outcome.Exit.Code != 0:
		return answer, "", "", errors.New(outcome.Exit.Error)
	}
	if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil {
		return answer, "", "", fmt.Errorf("decoding the answer: %w", err)
	}
	return answer, errOut.String(), "this server's informers", nil
}

// askRunningCache asks the query of the warm cache process of t's
// identity. ok is false, and the caller answers itself, when there is no
// usable cache, the cache declines, or the query's types include Secrets.
func (s *Server) askRunningCache(ctx context.Context, t targets.Target, env *engines.ServeEnv, q protocol.Query) (answer protocol.Answer, stderr, by string, ok bool, err error) {
	own := func(reason string) (protocol.Answer, string, string, bool, error) {
		klog.V(2).InfoS("mcp: answering from this server's informers", "context", t.Name, "reason", reason)
		return protocol.Answer{}, "", "", false, nil
	}
	id, err := engines.ResolveCacheIdentity(t.ConfigFlags)
	if err != nil {
		return own(err.Error())
	}
	conn, err := id.DialWarm()
	switch {
	case err != nil:
		return own(err.Error())
	case conn == nil:
		return own("no warm cache runs for the context's identity")
	}
	defer conn.Close()
	mappings, err := engine.Resolve(env.Source.RESTMapper(), []string{q.Types})
	if err != nil {
		return own(err.Error())
	}
	for _, m := range mappings {
		if m.Resource.GroupResource() == secretResource {
			return own("the query reads Secrets, whose values the cache process holds")
		}
	}
	var stdout, errOut bytes.Buffer
	res, err := conn.Collect(ctx, protocol.Request{Query: &q}, s.opts.SyncTimeout+engines.FirstFrameMargin, &stdout, &errOut)
	switch {
	case err != nil && ctx.Err() != nil:
		return answer, "", "", true, ctx.Err()
	case err != nil && stdout.Len() == 0:
		return own(err.Error())
	case err != nil:
		return answer, "", "", true, fmt.Errorf("the warm cache (pid %d): %w", conn.Hello.Pid, err)
	case res.Fallback != nil:
		return own("the cache declined: " + res.Fallback.Reason)
	case res.Exit != nil && res.Exit.Code != 0:
		return answer, "", "", true, errors.New(res.Exit.Error)
	}
	if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil {
		return own(fmt.Sprintf("decoding its answer: %v", err))
	}
	return answer, errOut.String(), fmt.Sprintf("the warm cache of cache start (pid %d)", conn.Hello.Pid), true, nil
}
