package dataview

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// syntheticVault builds a snapshot from literal notes with chosen
// modification times.
func syntheticVault(t testing.TB, notes map[string]string, mtimes map[string]time.Time) (*vault.Snapshot, *graph.Graph) {
	t.Helper()
	var list []*vault.Note
	for p, text := range notes {
		n, _ := vault.Parse(p, []byte(text))
		n.Size = int64(len(text))
		n.ModTime = mtimes[p]
		if n.ModTime.IsZero() {
			n.ModTime = testNow.Add(-365 * 24 * time.Hour)
		}
		list = append(list, n)
	}
	snap := vault.NewSnapshot(t.TempDir(), list, nil, nil)
	return snap, graph.New(snap)
}

func TestRunFrontmatterTypes(t *testing.T) {
	snap, g := syntheticVault(t, map[string]string{
		"a.md": "---\nDue Date: 2026-03-20T09:30\nlength: 2 hours\nparent: \"[[b]]\"\nthoughts:\n  Rating: 8\n  tags: [x, y]\nnum: \"42\"\nStatus: open\nstatus: closed\nwhen: 2026-03-14T10:00:00Z\n---\nbody [[b]]\n",
		"b.md": "---\nrating: 3\nSTATE: a\nState: b\n---\n",
	}, nil)
	tests := []struct {
		query, want string // want: JSON of the a.md (or only) row's values
	}{
		{`TABLE due-date, due-date.hour, length, length > dur(90 min), parent, parent.rating FROM "a"`, `["2026-03-20T09:30:00+01:00",9,"2 hours",true,"[[b.md]]",3]`},
		{`TABLE thoughts.rating, thoughts.Rating, thoughts["tags"], contains(thoughts, "tags"), length(thoughts) FROM "a"`, `[8,8,["x","y"],true,2]`},
		{`TABLE num, num = 42, number(num) = 42, Status, status FROM "a"`, `["42",false,true,"open","closed"]`},
		{`TABLE when, when < date(today), when.day FROM "a"`, `["2026-03-14T10:00:00Z",true,14]`},
		{`TABLE state FROM "b"`, `[["a","b"]]`},
		// parent: "[[b]]" is a link too, listed before the body's.
		{`TABLE file.outlinks, file.inlinks FROM "a"`, `[["[[b.md]]","[[b.md]]"],[]]`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := runQuery(t, snap, g, tt.query)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != 1 {
				t.Fatalf("%d rows", len(res.Rows))
			}
			vals := make([]any, len(res.Rows[0].Values))
			for i, v := range res.Rows[0].Values {
				vals[i] = JSON(v)
			}
			raw, _ := json.Marshal(vals)
			if string(raw) != tt.want {
				t.Errorf("got  %s\nwant %s", raw, tt.want)
			}
		})
	}
}

func TestRunModifiedRecently(t *testing.T) {
	day := 24 * time.Hour
	snap, g := syntheticVault(t, map[string]string{
		"new.md": "new", "week.md": "edge", "old.md": "old", "Sub/deep.md": "deep",
	}, map[string]time.Time{
		"new.md":      testNow.Add(-time.Hour),
		"week.md":     time.Date(2026, 3, 8, 0, 30, 0, 0, testNow.Location()),
		"old.md":      testNow.Add(-30 * day),
		"Sub/deep.md": testNow.Add(-2 * day),
	})
	tests := []struct {
		query string
		want  []string
	}{
		{`LIST WHERE file.mtime > date(today) - dur(7 days)`, []string{"Sub/deep.md", "new.md", "week.md"}},
		{`LIST WHERE file.mtime >= date(now) - dur(1 week)`, []string{"Sub/deep.md", "new.md"}},
		{`LIST WHERE file.mday = date(today)`, []string{"new.md"}},
		{`LIST WHERE date(today) - file.mday > dur(1 week)`, []string{"old.md"}},
		{`LIST SORT file.mtime DESC LIMIT 2`, []string{"new.md", "Sub/deep.md"}},
		{`LIST FROM "Sub" WHERE file.size = 4`, []string{"Sub/deep.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := runQuery(t, snap, g, tt.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := rowPaths(res); !slices.Equal(got, tt.want) {
				t.Errorf("rows %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRunTruncates(t *testing.T) {
	notes := map[string]string{}
	for i := range MaxRows + 5 {
		notes[strings.Repeat("n", 1+i%7)+"/"+time.Duration(i).String()+".md"] = "x"
	}
	snap, g := syntheticVault(t, notes, nil)
	res, err := runQuery(t, snap, g, "LIST")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != MaxRows || res.Total != MaxRows+5 || !res.Truncated {
		t.Fatalf("%d rows, total %d, truncated %v", len(res.Rows), res.Total, res.Truncated)
	}
	res, err = runQuery(t, snap, g, "LIST LIMIT 10")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 10 || res.Total != 10 || res.Truncated {
		t.Fatalf("%d rows, total %d, truncated %v", len(res.Rows), res.Total, res.Truncated)
	}
}

// TestASCIICollation checks the collator-free fast path against the
// collator, on the table itself and on random texts.
func TestASCIICollation(t *testing.T) {
	coll := collate.New(language.Und)
	chars := strings.Split(asciiCollation, "")
	if !slices.IsSortedFunc(chars, func(a, b string) int { return coll.CompareString(a, b) }) {
		t.Fatal("asciiCollation is not in collation order")
	}
	for b := byte(0x20); b < 0x7f; b++ {
		if !strings.ContainsRune(asciiCollation, rune(b)) {
			t.Fatalf("asciiCollation misses %q", b)
		}
	}
	c := newComparer()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "aAbBzZ09 -_.!~é\t"
	word := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(string([]rune(alphabet)[rng.IntN(len([]rune(alphabet)))]))
		}
		return b.String()
	}
	var buf collate.Buffer
	key := func(s string) []byte {
		defer buf.Reset()
		return slices.Clone(coll.KeyFromString(&buf, s))
	}
	for range 50000 {
		a, b := word(), word()
		want := coll.CompareString(a, b)
		if a == b {
			want = 0
		}
		if got := c.compareText(a, b); got != want {
			t.Fatalf("compareText(%q, %q) = %d, collator %d", a, b, got, want)
		}
		if got := bytes.Compare(key(a), key(b)); got != want {
			t.Fatalf("collation keys of %q, %q compare %d, collator %d", a, b, got, want)
		}
		if c.printable(a) && c.printable(b) {
			if got := bytes.Compare(c.asciiKey(a), c.asciiKey(b)); got != want {
				t.Fatalf("asciiKey(%q) vs asciiKey(%q) = %d, collator %d", a, b, got, want)
			}
		}
	}
}
