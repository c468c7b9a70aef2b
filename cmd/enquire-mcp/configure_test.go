package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func fixedEnv(goos string) configureEnv {
	env := configureEnv{goos: goos, home: "/home/ada", exe: "/opt/enquire/enquire-mcp", now: func() time.Time { return time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC) }}
	if goos == "windows" {
		env.home, env.appData, env.exe = `C:\Users\Ada`, `C:\Users\Ada\AppData\Roaming`, `C:\Program Files\enquire-mcp\enquire-mcp.exe`
	}
	return env
}

// TestConfigureSnippets parses every JSON snippet as JSON and checks the
// file, the command and the absolute paths, for every OS.
func TestConfigureSnippets(t *testing.T) {
	for _, tt := range []struct {
		client, goos, vault, http string
		file, key                 string // JSON clients
		command                   string // substring, command clients
		wantCmd, wantVault        string
	}{
		{client: "claude-desktop", goos: "darwin", vault: "/Users/ada/Vault", file: "/home/ada/Library/Application Support/Claude/claude_desktop_config.json", key: "mcpServers", wantCmd: "/opt/enquire/enquire-mcp", wantVault: "/Users/ada/Vault"},
		{client: "claude-desktop", goos: "windows", vault: `C:\Users\Ada\Vault`, file: `C:\Users\Ada\AppData\Roaming\Claude\claude_desktop_config.json`, key: "mcpServers", wantCmd: `C:\Program Files\enquire-mcp\enquire-mcp.exe`, wantVault: `C:\Users\Ada\Vault`},
		{client: "claude-desktop", goos: "linux", vault: "~/Vault", file: "/home/ada/.config/Claude/claude_desktop_config.json", key: "mcpServers", wantCmd: "/opt/enquire/enquire-mcp", wantVault: "/home/ada/Vault"},
		{client: "cursor", goos: "linux", vault: "/srv/v", file: "/home/ada/.cursor/mcp.json", key: "mcpServers", wantCmd: "/opt/enquire/enquire-mcp", wantVault: "/srv/v"},
		{client: "cursor", goos: "linux", http: "http://127.0.0.1:8765/mcp", file: "/home/ada/.cursor/mcp.json", key: "mcpServers"},
		{client: "vscode", goos: "windows", vault: `D:\Notes`, file: `C:\Users\Ada\AppData\Roaming\Code\User\mcp.json`, key: "servers", wantCmd: `C:\Program Files\enquire-mcp\enquire-mcp.exe`, wantVault: `D:\Notes`},
		{client: "vscode", goos: "linux", http: "http://127.0.0.1:8765/mcp", file: "/home/ada/.config/Code/User/mcp.json", key: "servers"},
		{client: "claude-code", goos: "linux", vault: "/srv/my vault", command: "claude mcp add obsidian -- /opt/enquire/enquire-mcp serve --vault '/srv/my vault'"},
		{client: "claude-code", goos: "linux", http: "http://127.0.0.1:8765/mcp", command: `claude mcp add --transport http obsidian http://127.0.0.1:8765/mcp --header "Authorization: Bearer $ENQUIRE_HTTP_TOKEN"`},
	} {
		t.Run(tt.client+"/"+tt.goos+"/"+tt.http, func(t *testing.T) {
			cfg, err := buildClientConfig(tt.client, tt.vault, tt.http, false, nil, fixedEnv(tt.goos))
			if err != nil {
				t.Fatal(err)
			}
			if tt.command != "" {
				if cfg.command != tt.command {
					t.Fatalf("command %q, want %q", cfg.command, tt.command)
				}
				return
			}
			if cfg.file != tt.file || cfg.format != "json" {
				t.Fatalf("file %q (%s), want %q", cfg.file, cfg.format, tt.file)
			}
			var doc map[string]any
			if err := json.Unmarshal(cfg.snippet, &doc); err != nil {
				t.Fatalf("snippet is not JSON: %v\n%s", err, cfg.snippet)
			}
			servers, _ := doc[tt.key].(map[string]any)
			entry, _ := servers["obsidian"].(map[string]any)
			if tt.http != "" {
				if entry["url"] != tt.http {
					t.Fatalf("entry %v", entry)
				}
				return
			}
			args, _ := entry["args"].([]any)
			if entry["command"] != tt.wantCmd || len(args) != 3 || args[0] != "serve" || args[2] != tt.wantVault {
				t.Fatalf("entry %v", entry)
			}
		})
	}
	if _, err := buildClientConfig("claude-desktop", "", "http://x", false, nil, fixedEnv("linux")); err == nil {
		t.Fatal("claude-desktop --http: no error")
	}
	if _, err := buildClientConfig("emacs", "/v", "", false, nil, fixedEnv("linux")); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Fatalf("unknown client: %v", err)
	}
}

func TestConfigureCodexTOML(t *testing.T) {
	cfg, err := buildClientConfig("codex", `C:\Vault "x"`, "", false, []string{"--include-pdfs"}, fixedEnv("windows"))
	if err != nil {
		t.Fatal(err)
	}
	want := "[mcp_servers.obsidian]\ncommand = \"C:\\\\Program Files\\\\enquire-mcp\\\\enquire-mcp.exe\"\nargs = [\"serve\", \"--vault\", \"C:\\\\Vault \\\"x\\\"\", \"--include-pdfs\"]\n"
	if string(cfg.snippet) != want || cfg.file != `C:\Users\Ada\.codex\config.toml` {
		t.Fatalf("codex:\n%s\nfile %s", cfg.snippet, cfg.file)
	}
	merged, replaced, err := cfg.merge([]byte("model = \"o3\""))
	if err != nil || replaced || !strings.HasPrefix(string(merged), "model = \"o3\"\n\n[mcp_servers.obsidian]") {
		t.Fatalf("merge: %q %v %v", merged, replaced, err)
	}
	// A second merge of the same name replaces the table (and its
	// sub-tables), leaving what follows it.
	old := string(merged) + "[mcp_servers.obsidian.env]\nX = \"1\"\n\n[other]\nk = 2\n"
	again, replaced, err := cfg.merge([]byte(old))
	if err != nil || !replaced || strings.Count(string(again), "[mcp_servers.obsidian") != 1 || !strings.Contains(string(again), "[other]\nk = 2") || !strings.HasSuffix(string(again), want) {
		t.Fatalf("second merge: %q %v %v", again, replaced, err)
	}
}

// TestConfigureWrite: --write keeps the other servers and settings,
// writes a backup first, and never touches a file it cannot parse.
func TestConfigureWrite(t *testing.T) {
	dir := t.TempDir()
	env := fixedEnv("linux")
	env.home = dir
	cfg, err := buildClientConfig("cursor", "/srv/v", "", false, nil, env)
	if err != nil {
		t.Fatal(err)
	}
	old := `{"mcpServers": {"other": {"command": "x"}}, "theme": "dark"}`
	if err := os.MkdirAll(filepath.Dir(cfg.file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg.file, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := writeClientConfig(&out, cfg, env); err != nil {
		t.Fatal(err)
	}
	backup := cfg.file + ".bak-20261124T050000Z"
	if b, err := os.ReadFile(backup); err != nil || string(b) != old {
		t.Fatalf("backup %q, %v", b, err)
	}
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
		Theme      string                    `json:"theme"`
	}
	b, _ := os.ReadFile(cfg.file)
	if err := json.Unmarshal(b, &doc); err != nil || doc.Theme != "dark" || doc.MCPServers["other"] == nil || doc.MCPServers["obsidian"]["command"] != env.exe {
		t.Fatalf("written: %s (%v)", b, err)
	}
	if st, _ := os.Stat(cfg.file); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode changed to %v", st.Mode())
	}
	bad := []byte("{ not json")
	if err := os.WriteFile(cfg.file, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeClientConfig(&out, cfg, env); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("invalid JSON: %v", err)
	}
	if b, _ := os.ReadFile(cfg.file); string(b) != string(bad) {
		t.Fatal("an unparsable config was changed")
	}
}

func TestConfigureCLIPrintsOnly(t *testing.T) {
	code, stdout, stderr := runCLI(t, "configure", "--client", "cursor", "--vault", fixtureVault)
	if code != 0 {
		t.Fatalf("%d %s", code, stderr)
	}
	_, body, _ := strings.Cut(stdout, "\n")
	var doc map[string]any
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("printed snippet is not JSON: %v\n%s", err, stdout)
	}
	abs, _ := filepath.Abs(fixtureVault)
	if !strings.Contains(body, abs) {
		t.Fatalf("vault path is not absolute: %s", body)
	}
}

// TestConfigureHTTPAuth: a config for a running serve-http sends the
// bearer token (serve-http requires one unless --no-auth), from
// ENQUIRE_HTTP_TOKEN or, in VS Code, a password prompt, so that no token
// is written into the config; with --no-auth it sends no header.
func TestConfigureHTTPAuth(t *testing.T) {
	const url = "http://127.0.0.1:8765/mcp"
	tests := []struct {
		client string
		noAuth bool
		want   []string // substrings of the command or snippet
		absent []string
	}{
		{"claude-code", false, []string{`--header "Authorization: Bearer $ENQUIRE_HTTP_TOKEN"`}, nil},
		{"claude-code", true, nil, []string{"--header", "Authorization"}},
		{"cursor", false, []string{`"headers": {`, `"Authorization": "Bearer ${env:ENQUIRE_HTTP_TOKEN}"`}, nil},
		{"cursor", true, nil, []string{"headers", "Authorization"}},
		{"vscode", false, []string{`"Authorization": "Bearer ${input:enquire-token}"`, `"id": "enquire-token"`, `"password": true`, `"type": "promptString"`}, nil},
		{"vscode", true, nil, []string{"headers", "inputs"}},
		{"codex", false, []string{`bearer_token_env_var = "ENQUIRE_HTTP_TOKEN"`}, nil},
		{"codex", true, nil, []string{"bearer_token"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/no-auth=%v", tt.client, tt.noAuth), func(t *testing.T) {
			cfg, err := buildClientConfig(tt.client, "", url, tt.noAuth, nil, fixedEnv("linux"))
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			printClientConfig(&out, tt.client, cfg)
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("lacks %q:\n%s", w, out.String())
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(out.String(), a) {
					t.Errorf("has %q:\n%s", a, out.String())
				}
			}
			if note := strings.Contains(out.String(), "ENQUIRE_HTTP_TOKEN to serve-http's token") || strings.Contains(out.String(), "reads the bearer token from ENQUIRE_HTTP_TOKEN"); note == tt.noAuth && tt.client != "vscode" {
				t.Errorf("note about the token printed = %v:\n%s", note, out.String())
			}
		})
	}
}

// TestConfigureVSCodeInputMerge: --write adds the token prompt to the
// file's inputs once, keeping the inputs and servers already there.
func TestConfigureVSCodeInputMerge(t *testing.T) {
	cfg, err := buildClientConfig("vscode", "", "http://127.0.0.1:8765/mcp", false, nil, fixedEnv("linux"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, old string
		inputs    int // inputs in the merged file
		err       string
	}{
		{"no file", "", 1, ""},
		{"other inputs and servers", `{"inputs": [{"type": "promptString", "id": "other"}], "servers": {"x": {"type": "stdio", "command": "x"}}}`, 2, ""},
		{"our input already there", `{"inputs": [{"type": "promptString", "id": "enquire-token"}]}`, 1, ""},
		{"inputs not a list", `{"inputs": {"id": "x"}}`, 0, "not a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			merged, _, err := cfg.merge([]byte(tt.old))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			again, _, err := cfg.merge(merged) // idempotent
			if err != nil || string(again) != string(merged) {
				t.Fatalf("second merge changed the file (%v):\n%s\n%s", err, merged, again)
			}
			var doc struct {
				Inputs  []map[string]any          `json:"inputs"`
				Servers map[string]map[string]any `json:"servers"`
			}
			if err := json.Unmarshal(merged, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Inputs) != tt.inputs || doc.Servers["obsidian"]["url"] == nil {
				t.Fatalf("merged:\n%s", merged)
			}
			if strings.Contains(tt.old, `"x"`) && doc.Servers["x"] == nil {
				t.Fatalf("other server lost:\n%s", merged)
			}
		})
	}
}

// TestConfigureHintRunsAsPrinted: the --write command configure prints
// runs as printed and writes the config printed, --vault and --args kept.
func TestConfigureHintRunsAsPrinted(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("ENQUIRE_VAULT", "")
	code, stdout, stderr := runCLI(t, "configure", "--client", "cursor", "--vault", fixtureVault, "--args", "--enable-write --live")
	if code != 0 {
		t.Fatalf("%d %s", code, stderr)
	}
	first, printed, _ := strings.Cut(stdout, "\n")
	_, hint, ok := strings.Cut(first, "(or run: ")
	hint, ok2 := strings.CutSuffix(hint, "):")
	if !ok || !ok2 {
		t.Fatalf("no command in %q", first)
	}
	words := shellWords(t, hint)
	if len(words) < 2 || words[0] != "enquire-mcp" {
		t.Fatalf("hint %q", hint)
	}
	if code, out, stderr := runCLI(t, words[1:]...); code != 0 || !strings.Contains(out, "added") {
		t.Fatalf("%s: %d %q %q", hint, code, out, stderr)
	}
	written, err := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(written) != printed {
		t.Fatalf("%s wrote\n%s\nconfigure printed\n%s", hint, written, printed)
	}
}

// TestConfigureNamesSideBySide: --name lets two vaults sit in one client
// config; a --write of a name already there replaces it and says so.
func TestConfigureNamesSideBySide(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("ENQUIRE_VAULT", "")
	steps := []struct {
		vault, name string
		said        string
		want        map[string]string // server name → its vault
	}{
		{"/srv/work", "", `added "obsidian"`, map[string]string{"obsidian": "/srv/work"}},
		{"/srv/home", "home-notes", `added "home-notes"`, map[string]string{"obsidian": "/srv/work", "home-notes": "/srv/home"}},
		{"/srv/home2", "home-notes", `replaced "home-notes"`, map[string]string{"obsidian": "/srv/work", "home-notes": "/srv/home2"}},
		{"/srv/work2", "", `replaced "obsidian"`, map[string]string{"obsidian": "/srv/work2", "home-notes": "/srv/home2"}},
	}
	for i, st := range steps {
		args := []string{"configure", "--client", "claude-desktop", "--vault", st.vault, "--write"}
		if st.name != "" {
			args = append(args, "--name", st.name)
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || !strings.Contains(stdout, st.said) {
			t.Fatalf("step %d: %d %q %q, want %q", i, code, stdout, stderr, st.said)
		}
		b, err := os.ReadFile(filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			MCPServers map[string]struct {
				Args []string `json:"args"`
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for name, s := range doc.MCPServers {
			if len(s.Args) >= 3 {
				got[name] = s.Args[2]
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(st.want) {
			t.Fatalf("step %d: servers %v, want %v", i, got, st.want)
		}
	}
	if code, _, stderr := runCLI(t, "configure", "--client", "cursor", "--vault", "/srv/x", "--name", "bad name"); code != 2 || !strings.Contains(stderr, "--name") {
		t.Fatalf("bad --name: %d %q", code, stderr)
	}
}
