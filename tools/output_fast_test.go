package tools

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCanonicalOutputMatchesSDK calls every read-only tool through two
// servers on the same engine, one with the go-sdk's own output encoding
// (decode, defaults, validation, encode) and one with withCanonicalOutput,
// and requires the same reply bytes.
func TestCanonicalOutputMatchesSDK(t *testing.T) {
	e := indexedEngine(t)
	fast := connectTo(t, New(e, Options{Version: "test"}))
	sdk := connectTo(t, New(e, Options{Version: "test", sdkOutput: true}))
	note := "Cooking/Pasta Carbonara.md"
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"obsidian_search", map[string]any{"query": "pasta eggs"}},
		{"obsidian_search", map[string]any{"query": "black holes <gravity> & light", "limit": 20}},
		{"obsidian_search", map[string]any{"query": "café naïve 東京 \u2028 \"quoted\""}},
		{"obsidian_search", map[string]any{"query": "plants", "per_signal": true}},
		{"obsidian_search", map[string]any{"query": "zzzz-no-hit-zzzz"}},
		{"obsidian_read_note", map[string]any{"path": note}},
		{"obsidian_read_note", map[string]any{"title": "Black Holes"}},
		{"obsidian_read_note", map[string]any{"path": "Nope/Missing.md"}},
		{"obsidian_get_backlinks", map[string]any{"path": note}},
		{"obsidian_get_outbound_links", map[string]any{"path": note}},
		{"obsidian_get_note_neighbors", map[string]any{"path": note}},
		{"obsidian_find_path", map[string]any{"from": note, "to": "Home.md"}},
		{"obsidian_find_similar", map[string]any{"path": note}},
		{"obsidian_get_unresolved_wikilinks", map[string]any{}},
		{"obsidian_resolve_wikilink", map[string]any{"wikilink": "[[Black Holes]]"}},
		{"obsidian_list_notes", map[string]any{}},
		{"obsidian_list_tags", map[string]any{}},
		{"obsidian_stats", map[string]any{}},
		{"obsidian_get_recent_edits", map[string]any{}},
		{"obsidian_frontmatter_search", map[string]any{"key": "tags"}},
		{"obsidian_dataview_query", map[string]any{"query": "TABLE tags FROM \"Cooking\""}},
		{"obsidian_full_text_search", map[string]any{"query": "bread"}},
		{"obsidian_embeddings_search", map[string]any{"query": "bread"}},
		{"obsidian_search_text", map[string]any{"query": "the"}},
		{"obsidian_context_pack", map[string]any{"query": "gardening"}},
		{"obsidian_get_chunk", map[string]any{"chunk_id": "Cooking/Pasta Carbonara.md#0"}},
	}
	ok := 0
	for _, c := range calls {
		a, b := call(t, fast, c.tool, c.args), call(t, sdk, c.tool, c.args)
		if a.IsError != b.IsError || text(a) != text(b) {
			t.Errorf("%s %v: replies differ\nfast (error %v): %.600s\nsdk  (error %v): %.600s", c.tool, c.args, a.IsError, text(a), b.IsError, text(b))
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("%s: results differ:\n%.600s\n%.600s", c.tool, ja, jb)
		}
		if !a.IsError {
			ok++
		}
	}
	if ok < len(calls)*2/3 {
		t.Errorf("only %d of %d calls succeeded: the comparison covers too few outputs", ok, len(calls))
	}
}

// TestCanonicalJSON compares canonicalJSON with decoding into a generic
// value and encoding again, on edge cases and on random values.
func TestCanonicalJSON(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `{"b":1,"a":2}`, `{"a":{"d":[3,{"z":1,"y":null}],"c":true},"A":false}`,
		`{"k":"\u003cb\u003e \u0026 \u2028 \u2029 é 東"}`, `{"k":"\u00e9\/x"}`, `{"k":"<raw & html>"}`,
		`{"k":"line\nbreak\ttab\u0001"}`, `{"n":[0,-0,1,-1,123456789012345,1234567890123456,9007199254740993,1e21,1e20,0.000001,1e-7,-1.5e-10,3.14159,1E3,2.5e+2,100.0]}`,
		`{"a":1,"a":2}`, `{"b":1,"a":2,"b":3}`, `{"\u0062":1,"a":2}`, `{"é":1,"e":2,"z":3}`,
		` { "b" : [ 1 , 2 ] , "a" : "x" } `, `"just a string"`, `12.50`, `null`, "{\"bad\":\"\xff\xfe\"}",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		b, _ := json.Marshal(randomValue(rng, 4))
		cases = append(cases, string(b))
	}
	for _, in := range cases {
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		want, _ := json.Marshal(v)
		got, err := canonicalJSON([]byte(in))
		if err != nil || string(got) != string(want) {
			t.Errorf("canonicalJSON(%s)\n got %s (%v)\nwant %s", in, got, err, want)
		}
	}
	for _, bad := range []string{`{`, `{"a"}`, `{"a":1,}`, `[1 2]`, `"open`, `tru`, `{"a":1} x`, ``} {
		if _, err := canonicalJSON([]byte(bad)); err == nil {
			t.Errorf("canonicalJSON(%q): no error", bad)
		}
	}
}

func randomValue(rng *rand.Rand, depth int) any {
	k := rng.IntN(8)
	if depth == 0 {
		k %= 5
	}
	switch k {
	case 0:
		return rng.IntN(2) == 0
	case 1:
		return nil
	case 2:
		return []any{rng.Int64N(1 << 60), rng.IntN(100) - 50, math.Ldexp(rng.Float64(), rng.IntN(160)-80), float32(rng.Float64())}[rng.IntN(4)]
	case 3, 4:
		pool := []string{"a", "Z", "<&>", "é", "東京", "\u2028", "\n\t\"\\", "\x01", "mixed é<b>\n", strings.Repeat("x", 40), "\xff"}
		return pool[rng.IntN(len(pool))] + pool[rng.IntN(len(pool))]
	case 5:
		n := rng.IntN(4)
		a := make([]any, n)
		for i := range a {
			a[i] = randomValue(rng, depth-1)
		}
		return a
	default:
		type S struct {
			Zeta  any     `json:"zeta"`
			Alpha float64 `json:"alpha"`
			Mid   any     `json:"mid,omitempty"`
			Raw   json.RawMessage
		}
		if k == 6 {
			return S{randomValue(rng, depth-1), rng.NormFloat64() * 1e6, randomValue(rng, depth-1), json.RawMessage(`{"y":"\u00e9","x":1.0}`)}
		}
		m := map[string]any{}
		for range rng.IntN(5) {
			m[[]string{"b", "a", "é", "A", "_", "key<>"}[rng.IntN(6)]] = randomValue(rng, depth-1)
		}
		return m
	}
}
