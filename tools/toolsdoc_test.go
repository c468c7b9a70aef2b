package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// toolsDocPath is the generated tool reference, relative to this package.
const toolsDocPath = "../docs/tools.md"

// TestToolsDoc renders the registered tools, resources and prompts into
// docs/tools.md and fails when the file differs, so the reference can
// never drift from the schemas clients see. Regenerate with
// `go test ./tools -run TestToolsDoc -update`.
func TestToolsDoc(t *testing.T) {
	got := renderToolsDoc(t)
	if *update {
		if err := os.WriteFile(toolsDocPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(toolsDocPath)
	if err != nil {
		t.Fatalf("%v; run go test ./tools -run TestToolsDoc -update", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/tools.md differs from the registered schemas; run go test ./tools -run TestToolsDoc -update\n%s", docFirstDiff(want, got))
	}
}

// TestDocsNameOnlyRegisteredTools fails when README.md or a file under
// docs/ names an obsidian_* tool the server does not register (a renamed
// or removed tool left in prose).
func TestDocsNameOnlyRegisteredTools(t *testing.T) {
	cs := connectTo(t, New(indexedEngine(t), Options{Version: "test", EnableWrite: true}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, tool := range res.Tools {
		known[tool.Name] = true
	}
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../README.md")
	for _, f := range files {
		if bad := unknownToolNames(t, f, known); len(bad) > 0 {
			t.Errorf("%s names tools the server does not register: %s", f, strings.Join(bad, ", "))
		}
	}
}

// toolName matches a tool name in prose.
var toolName = regexp.MustCompile(`obsidian_[a-z_]*[a-z]`)

// unknownToolNames lists the obsidian_* names in file that are not known;
// a name followed by "_" or "*" is a family ("obsidian_get_*"), not a name.
func unknownToolNames(t *testing.T, file string, known map[string]bool) []string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, loc := range toolName.FindAllIndex(raw, -1) {
		if end := loc[1]; end < len(raw) && (raw[end] == '_' || raw[end] == '*') {
			continue
		}
		if name := string(raw[loc[0]:loc[1]]); !known[name] && !slices.Contains(bad, name) {
			bad = append(bad, name)
		}
	}
	return bad
}

// docFirstDiff shows the first differing line of two texts.
func docFirstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n file: %s\n  now: %s", i+1, a, b)
		}
	}
	return ""
}

// docBM25Engine searches the fixture with a persistent index and no
// embeddings, to tell the tools BM25 brings from those vectors bring.
func docBM25Engine(t *testing.T) *search.Engine {
	t.Helper()
	ctx := context.Background()
	ix, err := openIndex(ctx, "../testdata/vault", filepath.Join(t.TempDir(), "ix.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	snap, err := vault.Load(ctx, "../testdata/vault", vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx, index.SnapshotSource(snap), nil); err != nil {
		t.Fatal(err)
	}
	e, err := search.New(ctx, snap, analysis.New(), search.Options{Index: ix})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// docToolNames lists the tools srv registers.
func docToolNames(t *testing.T, srv *Server) map[string]bool {
	t.Helper()
	res, err := connectTo(t, srv).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range res.Tools {
		names[tool.Name] = true
	}
	return names
}

// renderToolsDoc writes the markdown reference of every tool (with the
// condition under which the server registers it), resource and prompt.
func renderToolsDoc(t *testing.T) []byte {
	t.Helper()
	ctx := context.Background()
	plain := docToolNames(t, New(testEngine(t), Options{Version: "test"}))
	withBM25 := docToolNames(t, New(docBM25Engine(t), Options{Version: "test"}))
	withVectors := docToolNames(t, New(indexedEngine(t), Options{Version: "test"}))
	withMemory := docToolNames(t, New(indexedEngine(t), Options{Version: "test", EnableMemory: true}))
	cs := connectTo(t, New(indexedEngine(t), Options{Version: "test", EnableWrite: true}))
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	when := func(name string) string {
		switch {
		case plain[name]:
			return "always"
		case withBM25[name]:
			return "with the persistent index (BM25)"
		case withVectors[name]:
			return "when the index holds embeddings"
		case withMemory[name]:
			return "with `--enable-memory` or `--enable-write`"
		default:
			return "with `--enable-write`"
		}
	}

	var b strings.Builder
	b.WriteString("# MCP tools, resources and prompts\n\n")
	b.WriteString("<!-- Generated by `go test ./tools -run TestToolsDoc -update` from the schemas the server registers. Do not edit by hand: the test fails when this file and the server differ. -->\n\n")
	b.WriteString("Every tool's input is checked against the schema below before it runs; a bad argument is a tool error that quotes at most 200 characters of it. Unknown arguments are ignored. `--enabled-tools` and `--disabled-tools` (comma-separated names) narrow the list. Each reply is bounded by `--max-reply-bytes` (1 MiB): list tools page with `limit` and `cursor`, `obsidian_read_note` with `offset`. Every tool also declares an output schema; the full JSON of each is snapshotted in `tools/testdata/schemas/`.\n\n")

	b.WriteString("| tool | registered | read-only |\n|---|---|---|\n")
	for _, tool := range tools.Tools {
		ro := "no"
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			ro = "yes"
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", tool.Name, tool.Name, when(tool.Name), ro)
	}
	b.WriteString("\n## Tools\n")
	for _, tool := range tools.Tools {
		fmt.Fprintf(&b, "\n### %s\n\n", tool.Name)
		if tool.Title != "" {
			fmt.Fprintf(&b, "*%s.* ", strings.TrimSuffix(tool.Title, "."))
		}
		fmt.Fprintf(&b, "%s\n\nRegistered %s.\n", docLine(tool.Description), when(tool.Name))
		in := docSchemaMap(t, tool.InputSchema)
		docProps(&b, "Input", in, false)
		docProps(&b, "Output", docSchemaMap(t, tool.OutputSchema), true)
	}

	b.WriteString("\n## Resources\n\n| URI | name | description |\n|---|---|---|\n")
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		if !strings.HasPrefix(r.URI, "obsidian://note/") {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.URI, r.Name, docCell(r.Description))
		}
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range templates.ResourceTemplates {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.URITemplate, r.Name, docCell(r.Description))
	}

	b.WriteString("\n## Prompts\n\n| prompt | arguments | description |\n|---|---|---|\n")
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		var args []string
		for _, a := range p.Arguments {
			s := "`" + a.Name + "`"
			if a.Required {
				s += " (required)"
			}
			args = append(args, s+": "+a.Description)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.Name, docCell(strings.Join(args, " ")), docCell(p.Description))
	}
	return []byte(b.String())
}

// docSchemaMap turns a schema as the client received it into plain JSON maps.
func docSchemaMap(t *testing.T, schema any) map[string]any {
	t.Helper()
	if schema == nil {
		return nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// docProps renders an object schema's properties as a table; with
// nested, the fields of object and array-of-object properties follow as
// rows named parent.field or parent[].field (one level deep).
func docProps(b *strings.Builder, heading string, schema map[string]any, nested bool) {
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n\n| field | type | required | description |\n|---|---|---|---|\n", heading)
	var rows func(prefix string, s map[string]any, depth int)
	rows = func(prefix string, s map[string]any, depth int) {
		props, _ := s["properties"].(map[string]any)
		required := map[string]bool{}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				required[fmt.Sprint(r)] = true
			}
		}
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			p, _ := props[name].(map[string]any)
			req := ""
			if required[name] {
				req = "yes"
			}
			fmt.Fprintf(b, "| `%s%s` | %s | %s | %s |\n", prefix, name, docCell(docType(p)), req, docCell(docDescribe(p)))
			if !nested || depth > 0 {
				continue
			}
			if child := docObjectOf(p); child != nil {
				suffix := "."
				if p["type"] == "array" {
					suffix = "[]."
				}
				rows(prefix+name+suffix, child, depth+1)
			}
		}
	}
	rows("", schema, 0)
}

// docObjectOf returns the object schema with properties that p is or holds
// as array items, else nil.
func docObjectOf(p map[string]any) map[string]any {
	if items, ok := p["items"].(map[string]any); ok {
		p = items
	}
	if _, ok := p["properties"].(map[string]any); ok {
		return p
	}
	return nil
}

// docType renders a property's type: its JSON type with enum values,
// ranges and lengths, array items and anyOf alternatives.
func docType(p map[string]any) string {
	if alts, ok := p["anyOf"].([]any); ok {
		var parts []string
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok {
				parts = append(parts, docType(m))
			}
		}
		return strings.Join(parts, " or ")
	}
	typ := fmt.Sprint(p["type"])
	if list, ok := p["type"].([]any); ok {
		var parts []string
		for _, x := range list {
			parts = append(parts, fmt.Sprint(x))
		}
		typ = strings.Join(parts, " or ")
	}
	if p["type"] == nil {
		typ = "any"
	}
	if enum, ok := p["enum"].([]any); ok {
		var vals []string
		for _, v := range enum {
			vals = append(vals, fmt.Sprintf("`%v`", v))
		}
		return strings.Join(vals, ", ")
	}
	switch p["type"] {
	case "array":
		if items, ok := p["items"].(map[string]any); ok {
			typ = "array of " + docType(items)
		}
	case "integer", "number":
		lo, hasLo := p["minimum"]
		hi, hasHi := p["maximum"]
		switch {
		case hasLo && hasHi:
			typ += fmt.Sprintf(" %v–%v", lo, hi)
		case hasLo:
			typ += fmt.Sprintf(" ≥ %v", lo)
		case hasHi:
			typ += fmt.Sprintf(" ≤ %v", hi)
		}
	case "string":
		lo, hasLo := p["minLength"]
		hi, hasHi := p["maxLength"]
		switch {
		case hasLo && hasHi:
			typ += fmt.Sprintf(", %v–%v chars", lo, hi)
		case hasHi:
			typ += fmt.Sprintf(", ≤ %v chars", hi)
		}
	case "object":
		if extra, ok := p["additionalProperties"].(map[string]any); ok {
			typ = "object of " + docType(extra)
		}
	}
	return typ
}

// docDescribe is a property's description with its default, if any.
func docDescribe(p map[string]any) string {
	d := docLine(fmt.Sprint(p["description"]))
	if p["description"] == nil {
		d = ""
	}
	if def, ok := p["default"]; ok {
		raw, _ := json.Marshal(def)
		d = strings.TrimSpace(d + " Default `" + string(raw) + "`.")
	}
	return d
}

// docLine joins a text's lines with spaces.
func docLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// docCell makes text safe inside a markdown table cell.
func docCell(s string) string { return strings.ReplaceAll(docLine(s), "|", `\|`) }
