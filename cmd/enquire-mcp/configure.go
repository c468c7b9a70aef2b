package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// clientNames are the MCP clients configure knows, in the order --help
// lists them.
func clientNames() []string {
	return []string{"claude-code", "claude-desktop", "cursor", "vscode", "codex"}
}

// serverName is the key the server gets in every client's config.
const serverName = "obsidian"

// clientConfig is what configure prints for one client: a command to run,
// or a config file's content (JSON or TOML) and where that file lives.
type clientConfig struct {
	command string // a shell command (claude-code)
	// file is the client's config file; snippet its part for this server;
	// merge adds the snippet to an existing file's content.
	file    string
	format  string // "json" or "toml"
	snippet []byte
	merge   func(old []byte) ([]byte, error)
	// note is printed as a comment before the command or snippet.
	note string
}

// tokenNote tells where the client gets serve-http's token ("" when
// there is none to send).
func tokenNote(client, httpURL string, noAuth bool) string {
	switch {
	case httpURL == "" || noAuth:
		return ""
	case client == "claude-code":
		return "set " + tokenEnv + " to serve-http's token in this shell first (the shell puts it in the header, which Claude Code stores)"
	}
	return "the client reads the bearer token from " + tokenEnv + " (set it to serve-http's token in the client's environment)"
}

// withVSCodeInput adds a VS Code input (a prompt for the token) to the
// snippet and to the merged file, unless the file has one with its id.
func withVSCodeInput(cfg clientConfig, input map[string]any) clientConfig {
	addInput := func(doc map[string]any) error {
		inputs, ok := doc["inputs"].([]any)
		if !ok && doc["inputs"] != nil {
			return fmt.Errorf("%s: \"inputs\" is not a list; add the snippet by hand", cfg.file)
		}
		for _, in := range inputs {
			if m, ok := in.(map[string]any); ok && m["id"] == input["id"] {
				return nil
			}
		}
		doc["inputs"] = append(inputs, input)
		return nil
	}
	var doc map[string]any
	if err := json.Unmarshal(cfg.snippet, &doc); err == nil && addInput(doc) == nil {
		cfg.snippet, _ = marshalJSON(doc)
	}
	merge := cfg.merge
	cfg.merge = func(old []byte) ([]byte, error) {
		merged, err := merge(old)
		if err != nil {
			return nil, err
		}
		var doc map[string]any
		if err := json.Unmarshal(merged, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.file, err)
		}
		if err := addInput(doc); err != nil {
			return nil, err
		}
		return marshalJSON(doc)
	}
	return cfg
}

// configureEnv is where configure looks: injected by tests so that paths
// of every OS are produced on any.
type configureEnv struct {
	goos    string
	home    string
	appData string // %APPDATA% on Windows
	exe     string // this binary, absolute
	now     func() time.Time
}

func runConfigure(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("configure", "--client "+strings.Join(clientNames(), "|")+" [--vault PATH] [--http URL [--no-auth]] [--write]", stderr)
	client := fs.String("client", "", "the MCP client: "+strings.Join(clientNames(), ", "))
	vaultPath := fs.String("vault", envVault(), "path to the Obsidian vault (env ENQUIRE_VAULT)")
	httpURL := fs.String("http", "", "connect to a running serve-http at this URL instead of starting the binary")
	noAuth := fs.Bool("no-auth", false, "with --http: the server runs with --no-auth, so send no Authorization header")
	write := fs.Bool("write", false, "add the server to the client's config file (after a backup) instead of printing it")
	extra := fs.String("args", "", "extra serve flags, space-separated (e.g. \"--include-pdfs --enable-write\")")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	env, err := hostEnv()
	if err != nil {
		return err
	}
	if *noAuth && *httpURL == "" {
		return usageError("--no-auth goes with --http")
	}
	if *httpURL != "" {
		if u, err := url.Parse(*httpURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageError("--http %q: want the server's http or https URL, e.g. http://127.0.0.1:8765/mcp", *httpURL)
		}
	}
	cfg, err := buildClientConfig(*client, *vaultPath, *httpURL, *noAuth, strings.Fields(*extra), env)
	if err != nil {
		return err
	}
	if !*write {
		printClientConfig(stdout, *client, cfg)
		return nil
	}
	return writeClientConfig(stdout, cfg, env)
}

func hostEnv() (configureEnv, error) {
	exe, err := os.Executable()
	if err != nil {
		return configureEnv{}, fmt.Errorf("locating this binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return configureEnv{}, fmt.Errorf("home folder: %w", err)
	}
	return configureEnv{goos: runtime.GOOS, home: home, appData: os.Getenv("APPDATA"), exe: exe, now: time.Now}, nil
}

// tokenInput is the id of the VS Code input that prompts for the token.
const tokenInput = "enquire-token"

// buildClientConfig makes the config of one client. The vault is made
// absolute (a client starts the server from its own working folder).
// With httpURL the client connects to a running serve-http and, unless
// noAuth, sends the bearer token: taken from ENQUIRE_HTTP_TOKEN (as
// serve-http does) or, in VS Code, prompted for, so that it is not
// written into the config file.
func buildClientConfig(client, vaultPath, httpURL string, noAuth bool, extra []string, env configureEnv) (clientConfig, error) {
	known := false
	for _, c := range clientNames() {
		known = known || c == client
	}
	if !known {
		return clientConfig{}, usageError("--client must be one of %s", strings.Join(clientNames(), ", "))
	}
	var serveArgs []string
	if httpURL == "" {
		if vaultPath == "" {
			return clientConfig{}, usageError("--vault is required (or set ENQUIRE_VAULT), unless --http is given")
		}
		abs, err := absVault(vaultPath, env)
		if err != nil {
			return clientConfig{}, err
		}
		serveArgs = append([]string{"serve", "--vault", abs}, extra...)
	}
	join := func(elem ...string) string { return joinFor(env.goos, elem...) }
	switch client {
	case "claude-code":
		if httpURL != "" {
			cmd := "claude mcp add --transport http " + serverName + " " + shellQuote(httpURL)
			if !noAuth {
				// Double quotes: the shell puts the token in when the
				// command runs; Claude Code stores the header.
				cmd += ` --header "Authorization: Bearer $` + tokenEnv + `"`
			}
			return clientConfig{command: cmd, note: tokenNote(client, httpURL, noAuth)}, nil
		}
		return clientConfig{command: "claude mcp add " + serverName + " -- " + shellJoin(append([]string{env.exe}, serveArgs...))}, nil
	case "claude-desktop":
		if httpURL != "" {
			return clientConfig{}, usageError("Claude Desktop starts local servers only: leave out --http (or add the URL as a custom connector in its settings)")
		}
		file := join(env.home, ".config", "Claude", "claude_desktop_config.json")
		switch env.goos {
		case "darwin":
			file = join(env.home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
		case "windows":
			file = join(env.appData, "Claude", "claude_desktop_config.json")
		}
		return jsonConfig(file, "mcpServers", map[string]any{"command": env.exe, "args": serveArgs}), nil
	case "cursor":
		entry := map[string]any{"command": env.exe, "args": serveArgs}
		if httpURL != "" {
			entry = map[string]any{"url": httpURL}
			if !noAuth {
				entry["headers"] = map[string]any{"Authorization": "Bearer ${env:" + tokenEnv + "}"}
			}
		}
		cfg := jsonConfig(join(env.home, ".cursor", "mcp.json"), "mcpServers", entry)
		cfg.note = tokenNote(client, httpURL, noAuth)
		return cfg, nil
	case "vscode":
		entry := map[string]any{"type": "stdio", "command": env.exe, "args": serveArgs}
		var input map[string]any
		if httpURL != "" {
			entry = map[string]any{"type": "http", "url": httpURL}
			if !noAuth {
				entry["headers"] = map[string]any{"Authorization": "Bearer ${input:" + tokenInput + "}"}
				input = map[string]any{"type": "promptString", "id": tokenInput, "description": "enquire-mcp serve-http token", "password": true}
			}
		}
		file := join(env.home, ".config", "Code", "User", "mcp.json")
		switch env.goos {
		case "darwin":
			file = join(env.home, "Library", "Application Support", "Code", "User", "mcp.json")
		case "windows":
			file = join(env.appData, "Code", "User", "mcp.json")
		}
		cfg := jsonConfig(file, "servers", entry)
		if input != nil {
			cfg = withVSCodeInput(cfg, input)
		}
		return cfg, nil
	default: // codex
		cfg := codexConfig(join(env.home, ".codex", "config.toml"), env.exe, serveArgs, httpURL, noAuth)
		cfg.note = tokenNote(client, httpURL, noAuth)
		return cfg, nil
	}
}

// absVault makes the vault path absolute for the client's config ("~"
// expanded); it need not exist yet on this machine.
func absVault(p string, env configureEnv) (string, error) {
	p, err := expandHome(p, func() (string, error) { return env.home, nil })
	if err != nil {
		return "", err
	}
	if env.goos == "windows" || isWindowsAbs(p) {
		return p, nil // written by or for Windows: kept as given
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("--vault %s: %w", p, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

func isWindowsAbs(p string) bool {
	return driveLetterPath(p) || strings.HasPrefix(p, `\\`)
}

func driveLetterPath(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

// joinFor joins path elements with the separator of goos.
func joinFor(goos string, elem ...string) string {
	if goos == "windows" {
		return strings.Join(elem, `\`)
	}
	return strings.Join(elem, "/")
}

// jsonConfig is the config of the clients that keep servers in a JSON
// object under key ("mcpServers", or "servers" for VS Code).
func jsonConfig(file, key string, entry map[string]any) clientConfig {
	snippet, _ := marshalJSON(map[string]any{key: map[string]any{serverName: entry}})
	return clientConfig{file: file, format: "json", snippet: snippet, merge: func(old []byte) ([]byte, error) {
		doc := map[string]any{}
		if len(bytes.TrimSpace(old)) > 0 {
			if err := json.Unmarshal(old, &doc); err != nil {
				return nil, fmt.Errorf("%s is not valid JSON (%v); fix it or add the snippet by hand", file, err)
			}
		}
		servers, _ := doc[key].(map[string]any)
		if servers == nil {
			if _, exists := doc[key]; exists {
				return nil, fmt.Errorf("%s: %q is not an object; add the snippet by hand", file, key)
			}
			servers = map[string]any{}
		}
		servers[serverName] = entry
		doc[key] = servers
		return marshalJSON(doc)
	}}
}

func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// codexConfig is Codex's TOML table for the server; with httpURL and
// auth, Codex reads the bearer token from ENQUIRE_HTTP_TOKEN.
func codexConfig(file, exe string, args []string, httpURL string, noAuth bool) clientConfig {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", serverName)
	if httpURL != "" {
		fmt.Fprintf(&b, "url = %s\n", tomlString(httpURL))
		if !noAuth {
			fmt.Fprintf(&b, "bearer_token_env_var = %s\n", tomlString(tokenEnv))
		}
	} else {
		fmt.Fprintf(&b, "command = %s\n", tomlString(exe))
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = tomlString(a)
		}
		fmt.Fprintf(&b, "args = [%s]\n", strings.Join(quoted, ", "))
	}
	snippet := []byte(b.String())
	return clientConfig{file: file, format: "toml", snippet: snippet, merge: func(old []byte) ([]byte, error) {
		header := "[mcp_servers." + serverName + "]"
		for _, line := range strings.Split(string(old), "\n") {
			if strings.TrimSpace(line) == header {
				return nil, fmt.Errorf("%s already has %s; edit it by hand (a TOML table is not replaced automatically)", file, header)
			}
		}
		out := append([]byte{}, old...)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		return append(out, snippet...), nil
	}}
}

// tomlString quotes s as a TOML basic string (JSON's escapes are a
// subset TOML accepts).
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// shellQuote quotes s for a POSIX shell (and PowerShell) when needed.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func printClientConfig(w io.Writer, client string, cfg clientConfig) {
	if cfg.note != "" {
		fmt.Fprintf(w, "# %s\n", cfg.note)
	}
	if cfg.command != "" {
		fmt.Fprintf(w, "# run once in a terminal:\n%s\n", cfg.command)
		return
	}
	fmt.Fprintf(w, "# add to %s (or run: enquire-mcp configure --client %s --write):\n", cfg.file, client)
	w.Write(cfg.snippet)
}

// writeClientConfig adds the server to the client's config file: the old
// file is copied to a timestamped backup first, and the new one is
// written to a temporary file and renamed, so a failure loses nothing.
func writeClientConfig(w io.Writer, cfg clientConfig, env configureEnv) error {
	if cfg.command != "" {
		return usageError("--write: this client is configured by a command; run it:\n%s", cfg.command)
	}
	old, err := os.ReadFile(cfg.file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", cfg.file, err)
	}
	existed := err == nil
	merged, err := cfg.merge(old)
	if err != nil {
		return err
	}
	mode := os.FileMode(0o600)
	if st, err := os.Stat(cfg.file); err == nil {
		mode = st.Mode().Perm()
	}
	if existed {
		backup := cfg.file + ".bak-" + env.now().UTC().Format("20060102T150405Z")
		if err := os.WriteFile(backup, old, mode); err != nil {
			return fmt.Errorf("backup %s: %w", backup, err)
		}
		fmt.Fprintf(w, "backup: %s\n", backup)
	} else if err := os.MkdirAll(filepath.Dir(cfg.file), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(cfg.file), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(cfg.file), "."+filepath.Base(cfg.file)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", cfg.file, err)
	}
	_, werr := tmp.Write(merged)
	err = errors.Join(werr, tmp.Chmod(mode), tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), cfg.file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", cfg.file, err)
	}
	fmt.Fprintf(w, "added %q to %s; restart the client to load it\n", serverName, cfg.file)
	return nil
}
