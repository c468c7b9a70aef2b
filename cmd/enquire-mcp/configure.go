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
	"regexp"
	"runtime"
	"strings"
	"time"
)

// clientNames are the MCP clients configure knows, in the order --help
// lists them.
func clientNames() []string {
	return []string{"claude-code", "claude-desktop", "cursor", "vscode", "codex"}
}

// serverName is the key the server gets in a client's config unless
// --name gives another (one per vault, side by side).
const serverName = "obsidian"

// serverNamePattern is what --name may be: a bare TOML key, also a safe
// JSON key and shell word.
var serverNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// clientConfig is what configure prints for one client: a command to run,
// or a config file's content (JSON or TOML) and where that file lives.
type clientConfig struct {
	command string // a shell command (claude-code)
	// file is the client's config file; snippet its part for this server;
	// merge adds the snippet to an existing file's content, or replaces
	// the server of the same name (replaced says which).
	file    string
	format  string // "json" or "toml"
	snippet []byte
	merge   func(old []byte) (merged []byte, replaced bool, err error)
	// note is printed as a comment before the command or snippet.
	note string
	// name is the server's key in the client's config.
	name string
	// write is the configure command line that writes this config.
	write string
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
	cfg.merge = func(old []byte) ([]byte, bool, error) {
		merged, replaced, err := merge(old)
		if err != nil {
			return nil, false, err
		}
		var doc map[string]any
		if err := json.Unmarshal(merged, &doc); err != nil {
			return nil, false, fmt.Errorf("%s: %w", cfg.file, err)
		}
		if err := addInput(doc); err != nil {
			return nil, false, err
		}
		b, err := marshalJSON(doc)
		return b, replaced, err
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
	fs := newFlagSet("configure", "--client "+strings.Join(clientNames(), "|")+" [--vault PATH] [--http URL [--no-auth]] [--name NAME] [--write]", stderr)
	client := fs.String("client", "", "the MCP client: "+strings.Join(clientNames(), ", "))
	vaultPath := fs.String("vault", envVault(), "path to the Obsidian vault (env ENQUIRE_VAULT)")
	httpURL := fs.String("http", "", "connect to a running serve-http at this URL instead of starting the binary")
	noAuth := fs.Bool("no-auth", false, "with --http: the server runs with --no-auth, so send no Authorization header")
	write := fs.Bool("write", false, "add the server to the client's config file (after a backup) instead of printing it")
	extra := fs.String("args", "", "extra serve flags, space-separated (e.g. \"--enable-write\")")
	name := fs.String("name", serverName, "the server's name in the client's config: one name per vault lets several vaults sit side by side (a --write of a name already there replaces it)")
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
	cfg, err := buildNamedConfig(*client, *name, *vaultPath, *httpURL, *noAuth, strings.Fields(*extra), env)
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
	return buildNamedConfig(client, serverName, vaultPath, httpURL, noAuth, extra, env)
}

// buildNamedConfig is buildClientConfig with the server's name in the
// client's config.
func buildNamedConfig(client, name, vaultPath, httpURL string, noAuth bool, extra []string, env configureEnv) (clientConfig, error) {
	cfg, err := clientConfigOf(client, name, vaultPath, httpURL, noAuth, extra, env)
	if err != nil {
		return cfg, err
	}
	cfg.name = name
	// The command that writes it: every flag that shaped it, the vault
	// made absolute, so that it runs as printed from any folder.
	write := []string{"enquire-mcp", "configure", "--client", client}
	if httpURL == "" {
		abs, _ := absVault(vaultPath, env) // checked by clientConfigOf
		write = append(write, "--vault", abs)
	} else {
		write = append(write, "--http", httpURL)
	}
	if noAuth {
		write = append(write, "--no-auth")
	}
	if len(extra) > 0 {
		write = append(write, "--args", strings.Join(extra, " "))
	}
	if name != serverName {
		write = append(write, "--name", name)
	}
	cfg.write = shellJoin(append(write, "--write"))
	return cfg, nil
}

func clientConfigOf(client, name, vaultPath, httpURL string, noAuth bool, extra []string, env configureEnv) (clientConfig, error) {
	if !serverNamePattern.MatchString(name) {
		return clientConfig{}, usageError("--name %q: want letters, digits, '-' and '_'", name)
	}
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
			cmd := "claude mcp add --transport http " + name + " " + shellQuote(httpURL)
			if !noAuth {
				// Double quotes: the shell puts the token in when the
				// command runs; Claude Code stores the header.
				cmd += ` --header "Authorization: Bearer $` + tokenEnv + `"`
			}
			return clientConfig{command: cmd, note: tokenNote(client, httpURL, noAuth)}, nil
		}
		return clientConfig{command: "claude mcp add " + name + " -- " + shellJoin(append([]string{env.exe}, serveArgs...))}, nil
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
		return jsonConfig(file, "mcpServers", name, map[string]any{"command": env.exe, "args": serveArgs}), nil
	case "cursor":
		entry := map[string]any{"command": env.exe, "args": serveArgs}
		if httpURL != "" {
			entry = map[string]any{"url": httpURL}
			if !noAuth {
				entry["headers"] = map[string]any{"Authorization": "Bearer ${env:" + tokenEnv + "}"}
			}
		}
		cfg := jsonConfig(join(env.home, ".cursor", "mcp.json"), "mcpServers", name, entry)
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
		cfg := jsonConfig(file, "servers", name, entry)
		if input != nil {
			cfg = withVSCodeInput(cfg, input)
		}
		return cfg, nil
	default: // codex
		cfg := codexConfig(join(env.home, ".codex", "config.toml"), name, env.exe, serveArgs, httpURL, noAuth)
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
// object under key ("mcpServers", or "servers" for VS Code), the server
// under name.
func jsonConfig(file, key, name string, entry map[string]any) clientConfig {
	snippet, _ := marshalJSON(map[string]any{key: map[string]any{name: entry}})
	return clientConfig{file: file, format: "json", snippet: snippet, merge: func(old []byte) ([]byte, bool, error) {
		doc := map[string]any{}
		if len(bytes.TrimSpace(old)) > 0 {
			if err := json.Unmarshal(old, &doc); err != nil {
				return nil, false, fmt.Errorf("%s is not valid JSON (%v); fix it or add the snippet by hand", file, err)
			}
		}
		servers, _ := doc[key].(map[string]any)
		if servers == nil {
			if _, exists := doc[key]; exists {
				return nil, false, fmt.Errorf("%s: %q is not an object; add the snippet by hand", file, key)
			}
			servers = map[string]any{}
		}
		_, replaced := servers[name]
		servers[name] = entry
		doc[key] = servers
		b, err := marshalJSON(doc)
		return b, replaced, err
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
func codexConfig(file, name, exe string, args []string, httpURL string, noAuth bool) clientConfig {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", name)
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
	return clientConfig{file: file, format: "toml", snippet: snippet, merge: func(old []byte) ([]byte, bool, error) {
		kept, replaced := withoutTOMLTable(string(old), "mcp_servers."+name)
		out := []byte(kept)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n\n")) {
			out = append(out, '\n')
		}
		return append(out, snippet...), replaced, nil
	}}
}

// withoutTOMLTable removes the table [name] and its sub-tables
// ([name.env], …) from doc, up to the next other table's header.
func withoutTOMLTable(doc, name string) (string, bool) {
	var kept []string
	in, found := false, false
	for _, line := range strings.SplitAfter(doc, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			h := strings.Trim(t, "[] \t")
			in = h == name || strings.HasPrefix(h, name+".")
			found = found || in
		}
		if !in {
			kept = append(kept, line)
		}
	}
	return strings.TrimRight(strings.Join(kept, ""), "\n") + "\n", found
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
	fmt.Fprintf(w, "# add to %s (or run: %s):\n", cfg.file, cfg.write)
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
	merged, replaced, err := cfg.merge(old)
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
	if replaced {
		fmt.Fprintf(w, "replaced %q in %s; restart the client to load it\n", cfg.name, cfg.file)
	} else {
		fmt.Fprintf(w, "added %q to %s; restart the client to load it\n", cfg.name, cfg.file)
	}
	return nil
}
