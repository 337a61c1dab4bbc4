package targets

import (
	"context"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// This file keeps exec credential plugins that need the terminal from
// running at the same time in different contexts: two prompts at once
// would share one terminal. A context whose user has such a plugin
// fetches its credentials once, before its first client is used, holding
// one lock of the process; client-go keeps the credentials per plugin
// configuration, so the context's later clients reuse them. Plugins that
// do not need the terminal run in parallel, unserialized.

// terminalLock is held while a plugin that needs the terminal runs.
var terminalLock sync.Mutex

// credentialFetchTimeout bounds the request that makes a plugin that needs
// the terminal run, when the config sets no timeout of its own.
const credentialFetchTimeout = 2 * time.Minute

// NeedsTerminal reports whether the exec credential plugin of cfg, if any,
// will be run interactively: interactiveMode Always, or IfAvailable (the
// default) when stdin is available to it and stdinTerminal.
func NeedsTerminal(cfg *rest.Config, stdinTerminal bool) bool {
	if cfg == nil || cfg.ExecProvider == nil {
		return false
	}
	switch cfg.ExecProvider.InteractiveMode {
	case clientcmdapi.AlwaysExecInteractiveMode:
		return true
	case clientcmdapi.IfAvailableExecInteractiveMode, "":
		return !cfg.ExecProvider.StdinUnavailable && stdinTerminal
	}
	return false
}

// terminalGate serializes the first credential fetch of the configs that
// need the terminal.
type terminalGate struct {
	stdinTerminal func() bool
	// fetch makes the plugin of cfg run once (a request to the server).
	fetch func(cfg *rest.Config)
	once  sync.Once
}

// wrap returns cfg after, if its plugin needs the terminal, fetching its
// credentials once under terminalLock.
func (g *terminalGate) wrap(cfg *rest.Config) *rest.Config {
	if !NeedsTerminal(cfg, g.stdinTerminal()) {
		return cfg
	}
	g.once.Do(func() {
		terminalLock.Lock()
		defer terminalLock.Unlock()
		g.fetch(cfg)
	})
	return cfg
}

// SerializeTerminalExec returns a ConfigFlags.WrapConfigFn for one
// context: it applies next (if any), then, when the context's exec
// credential plugin needs the terminal, has it run once before the config
// is used, one such context at a time in the process. A failed fetch is
// not reported here: the context's own requests report it.
func SerializeTerminalExec(next func(*rest.Config) *rest.Config) func(*rest.Config) *rest.Config {
	g := &terminalGate{
		stdinTerminal: func() bool { return term.IsTerminal(int(os.Stdin.Fd())) },
		fetch:         fetchCredentials,
	}
	return func(cfg *rest.Config) *rest.Config {
		if next != nil {
			cfg = next(cfg)
		}
		return g.wrap(cfg)
	}
}

// fetchCredentials asks the server for its version with cfg, which runs
// cfg's exec plugin if client-go holds no credentials for it yet.
func fetchCredentials(cfg *rest.Config) {
	c := rest.CopyConfig(cfg)
	if c.Timeout == 0 {
		c.Timeout = credentialFetchTimeout
	}
	d, err := discovery.NewDiscoveryClientForConfig(c)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	_ = d.RESTClient().Get().AbsPath("/version").Do(ctx).Error()
}
