package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/httpserve"
)

// tokenEnv is the environment variable that carries the bearer token (a
// flag value would show in process lists).
const tokenEnv = "ENQUIRE_HTTP_TOKEN"

// httpFlags are the flags of serve-http beyond serve's.
type httpFlags struct {
	addr, tokenFile     string
	noAuth, allowRemote bool
	hosts, origins      string
	tlsCert, tlsKey     string
	stateful            bool
	sessionIdle         time.Duration
	maxSessions         int
	rate                float64
	maxBody             int64
	maxConcurrent       int
	requestTimeout      time.Duration
	logQueries          bool
	cpuProfile          string
	memProfile          string
	warmup              int
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.addr, "addr", "127.0.0.1:8765", "address to listen on; a non-loopback one needs --allow-remote")
	fs.StringVar(&h.tokenFile, "token-file", "", "file holding the bearer token (default: env "+tokenEnv+"); make one with `enquire-mcp gen-token`")
	fs.BoolVar(&h.noAuth, "no-auth", false, "accept requests without a bearer token (refused on a non-loopback address)")
	fs.BoolVar(&h.allowRemote, "allow-remote", false, "allow a non-loopback --addr (put TLS in front, or use --tls-cert/--tls-key)")
	fs.StringVar(&h.hosts, "allow-host", "", "comma-separated extra host names accepted in the Host header (default: loopback names and the --addr host)")
	fs.StringVar(&h.origins, "allow-origin", "", "comma-separated browser origins allowed to call the server, with CORS (e.g. https://app.example)")
	fs.StringVar(&h.tlsCert, "tls-cert", "", "PEM certificate: serve HTTPS (with --tls-key)")
	fs.StringVar(&h.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
	fs.BoolVar(&h.stateful, "stateful", false, "keep sessions (Mcp-Session-Id, SSE on GET, DELETE ends one); default stateless")
	fs.DurationVar(&h.sessionIdle, "session-idle", httpserve.DefaultSessionIdle, "with --stateful: close a session idle this long")
	fs.IntVar(&h.maxSessions, "max-sessions", httpserve.DefaultMaxSessions, "with --stateful: most live sessions (then 503 with Retry-After)")
	fs.Float64Var(&h.rate, "rate-limit", httpserve.DefaultRatePerMinute, "requests per minute per token (per client IP with --no-auth); 0 disables")
	fs.Int64Var(&h.maxBody, "max-body", httpserve.DefaultMaxBodyBytes, "largest request body in bytes (413 beyond)")
	fs.IntVar(&h.maxConcurrent, "max-concurrent", httpserve.DefaultMaxConcurrent, "requests served at once; more wait up to 2 s, then 503")
	fs.DurationVar(&h.requestTimeout, "request-timeout", httpserve.DefaultRequestTimeout, "deadline of one request")
	fs.BoolVar(&h.logQueries, "log-queries", false, "include tool arguments (query text) in the access log")
	fs.StringVar(&h.cpuProfile, "cpu-profile", "", "write a CPU profile (go tool pprof) of the time from ready to shutdown to this file (diagnostics)")
	fs.IntVar(&h.warmup, "warmup", defaultWarmSearches, "searches (with a tenth as many reads and graph calls) run in process before /ready says ready, at most "+warmBudget.String()+"; 0 skips the warm-up")
	fs.StringVar(&h.memProfile, "mem-profile", "", "write an allocation profile (go tool pprof -sample_index=alloc_space) to this file at shutdown (diagnostics)")
}

// checkLimits validates the numbers: a stray minus sign must not fall
// back to a default in silence.
func (h *httpFlags) checkLimits() error {
	for _, err := range []error{
		atLeast("max-body", h.maxBody, 1),
		atLeast("max-concurrent", h.maxConcurrent, 1),
		atLeast("max-sessions", h.maxSessions, 1),
		atLeast("rate-limit", h.rate, 0),
		atLeast("request-timeout", h.requestTimeout, time.Millisecond),
		atLeast("session-idle", h.sessionIdle, time.Millisecond),
		atLeast("warmup", h.warmup, 0),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// check validates the network and auth flags before the vault is loaded,
// and reads the token. It returns warnings to log.
func (h *httpFlags) check() (token string, warnings []string, err error) {
	host, _, err := net.SplitHostPort(h.addr)
	if err != nil {
		return "", nil, usageError("--addr %q: %v", h.addr, err)
	}
	loopback := host != "" && httpserve.IsLoopback(host)
	if (h.tlsCert == "") != (h.tlsKey == "") {
		return "", nil, usageError("--tls-cert and --tls-key go together")
	}
	if h.tlsCert != "" {
		// Fail now rather than after loading the vault.
		if _, err := tls.LoadX509KeyPair(h.tlsCert, h.tlsKey); err != nil {
			return "", nil, fmt.Errorf("TLS certificate: %w", err)
		}
	}
	if !loopback {
		if h.noAuth {
			return "", nil, usageError("--no-auth is refused on the non-loopback address %s: anyone who can reach the port would read the vault", h.addr)
		}
		if !h.allowRemote {
			return "", nil, usageError("%s is not a loopback address: add --allow-remote to serve the network", h.addr)
		}
		if h.tlsCert == "" {
			warnings = append(warnings, "serving plain HTTP on a non-loopback address: the bearer token crosses the network in clear; put TLS in front or use --tls-cert/--tls-key")
		}
	}
	if h.noAuth {
		return "", warnings, nil
	}
	switch {
	case h.tokenFile != "":
		info, err := os.Stat(h.tokenFile)
		if err != nil {
			return "", nil, fmt.Errorf("token file: %w", err)
		}
		if info.Mode().Perm()&0o077 != 0 {
			warnings = append(warnings, fmt.Sprintf("token file %s is readable by other users (mode %v); chmod 600 it", h.tokenFile, info.Mode().Perm()))
		}
		b, err := os.ReadFile(h.tokenFile)
		if err != nil {
			return "", nil, fmt.Errorf("token file: %w", err)
		}
		token = strings.TrimSpace(string(b))
	case os.Getenv(tokenEnv) != "":
		token = strings.TrimSpace(os.Getenv(tokenEnv))
	default:
		return "", nil, usageError("a bearer token is required: put one in %s or --token-file (make one with `enquire-mcp gen-token`), or pass --no-auth on a loopback address", tokenEnv)
	}
	if err := httpserve.CheckToken(token); err != nil {
		return "", nil, fmt.Errorf("bearer token: %w", err)
	}
	return token, warnings, nil
}

// allowedHosts: loopback names, the --addr host when it names one, and
// --allow-host.
func (h *httpFlags) allowedHosts() []string {
	hosts := slices.Clone(httpserve.LoopbackHosts)
	if host, _, err := net.SplitHostPort(h.addr); err == nil && host != "" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			hosts = append(hosts, host)
		}
	}
	return append(hosts, splitList(h.hosts)...)
}

// exposureWarnings are the warnings for a server listening on a
// non-loopback address (remote): Host names remote clients would use are
// refused unless listed, and write or memory tools reach the network.
func exposureWarnings(remote bool, hf *httpFlags, sf *serveFlags) []string {
	if !remote {
		return nil
	}
	var w []string
	if len(splitList(hf.hosts)) == 0 {
		w = append(w, fmt.Sprintf("only these names are accepted in the Host header: %s; add --allow-host NAME for the names remote clients use", strings.Join(hf.allowedHosts(), ", ")))
	}
	switch {
	case sf.enableWrite:
		w = append(w, "write tools are exposed to the network: any holder of the token can change the vault")
	case sf.enableMemory:
		w = append(w, "memory tools are exposed to the network: any holder of the token can write and delete notes in the memory folder")
	}
	return w
}

func runServeHTTP(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := newFlagSet("serve-http", "--vault PATH [--addr 127.0.0.1:8765] [flags]", stderr)
	var vf vaultFlags
	vf.register(fs)
	var sf serveFlags
	sf.register(fs)
	var hf httpFlags
	hf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	vf.noteGiven(fs, contentKeep)
	if err := sf.check(); err != nil {
		return err
	}
	if err := hf.checkLimits(); err != nil {
		return err
	}
	token, warnings, err := hf.check()
	if err != nil {
		return err
	}
	logger := stderrLogger(stderr)
	for _, w := range warnings {
		logger.Warn(w)
	}
	ln, err := net.Listen("tcp", hf.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	hosts := hf.allowedHosts()
	for _, w := range exposureWarnings(!httpserve.IsLoopback(ln.Addr().String()), &hf, &sf) {
		logger.Warn(w)
	}
	// The port opens first (/health answers, /ready and /mcp say 503
	// loading) and the vault loads behind it.
	hs := httpserve.New(httpserve.Config{
		Token: token, AllowedHosts: hosts, CORSOrigins: splitList(hf.origins),
		MaxBodyBytes: hf.maxBody, RatePerMinute: hf.rate, MaxConcurrent: hf.maxConcurrent,
		RequestTimeout: hf.requestTimeout, Stateful: hf.stateful, SessionIdle: hf.sessionIdle,
		MaxSessions: hf.maxSessions, LogQueries: hf.logQueries, Logger: logger,
	})
	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(serveCtx, ln, httpserve.TLS{CertFile: hf.tlsCert, KeyFile: hf.tlsKey}) }()
	scheme := "http"
	if hf.tlsCert != "" {
		scheme = "https"
	}
	url := scheme + "://" + ln.Addr().String() + httpserve.MCPPath

	vf.keepState = true
	l, err := vf.load(ctx, logger)
	if err != nil {
		stop()
		<-served
		return err
	}
	defer l.CloseOrWarn()
	defer sf.memLimit.apply(logger)()
	defer stop() // the watcher stops before the index closes
	sf.maxFileSize = vf.maxFileSize
	srv, _ := sf.newServer(serveCtx, l, vf.indexWhy, logger, "http")
	stopProfile, err := startCPUProfile(hf.cpuProfile, hf.memProfile)
	if err != nil {
		stop()
		<-served
		return err
	}
	defer func() {
		if err := stopProfile(); err != nil {
			logger.Warn(err.Error())
		}
	}()
	if ix := l.Index(); ix != nil {
		// Many clients search at once: build the in-memory BM25 copy
		// before /ready says so (unless the engine state brought it).
		// Built in the background under load, it would get a sliver of
		// the CPU and FTS5 (same results, several times the cost) would
		// answer for many seconds.
		if err := ix.BM25().EnsurePostings(ctx); err != nil {
			logger.Warn("in-memory BM25 copy not built; searches read SQLite (same results) until a search rebuilds it", "err", err)
		}
	}
	warmUp(ctx, srv, hf.warmup, logger)
	hs.Attach(srv.MCP())
	logger.Info("serve-http listening", "url", url, "auth", token != "", "stateful", hf.stateful, "rate_per_min", hf.rate)
	if err := <-served; err != nil {
		return err
	}
	logger.Info("serve-http stopped")
	return nil
}

func runGenToken(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gen-token", "[--out FILE]", stderr)
	out := fs.String("out", "", "write the token to this file (mode 0600) instead of stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	tok, err := httpserve.GenerateToken()
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = fmt.Fprintln(stdout, tok)
		return err
	}
	// The README's ~/.config/enquire-mcp/token does not exist on a fresh
	// machine; the folders holding a secret are the user's alone.
	if err := os.MkdirAll(filepath.Dir(*out), 0o700); err != nil {
		return fmt.Errorf("token file folder: %w", err)
	}
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("token file: %w", err)
	}
	if _, err := fmt.Fprintln(f, tok); err != nil {
		f.Close()
		return fmt.Errorf("token file %s: %w", *out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("token file %s: %w", *out, err)
	}
	return nil
}

// minLevel drops records below its level.
type minLevel struct {
	slog.Handler
	level slog.Level
}

// Enabled reports whether l reaches the level.
func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.level && m.Handler.Enabled(ctx, l)
}

// WithAttrs keeps the level on derived handlers.
func (m minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{m.Handler.WithAttrs(a), m.level}
}

// WithGroup keeps the level on derived handlers.
func (m minLevel) WithGroup(name string) slog.Handler {
	return minLevel{m.Handler.WithGroup(name), m.level}
}
