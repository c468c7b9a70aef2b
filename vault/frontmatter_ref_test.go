package vault

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/adrg/frontmatter"
	"github.com/goccy/go-yaml"
)

// referenceSplit is splitFrontmatter as it was with adrg/frontmatter,
// kept to prove that the hand-written fence finds the same blocks.
func referenceSplit(text string) (map[string]any, string, int, string) {
	first, _, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return nil, text, 1, ""
	}
	var raw map[string]any
	rest, err := frontmatter.Parse(strings.NewReader(text), &raw, frontmatter.NewFormat("---", "---", yaml.Unmarshal))
	if err != nil {
		_, end := fence(text)
		if end < 0 {
			return nil, text, 1, ""
		}
		return nil, text[end:], 1 + strings.Count(text[:end], "\n"), "malformed: " + firstLine(err.Error())
	}
	consumed := len(text) - len(rest)
	if consumed == 0 {
		return nil, text, 1, ""
	}
	budget := maxFrontmatterNodes
	norm, ok := normalizeYAML(raw, &budget).(map[string]any)
	if !ok || budget < 0 {
		return nil, string(rest), 1 + strings.Count(text[:consumed], "\n"), "expands"
	}
	if len(norm) == 0 {
		norm = nil
	}
	return norm, string(rest), 1 + strings.Count(text[:consumed], "\n"), ""
}

// sameSplit fails t when splitFrontmatter and the reference disagree on
// text (warnings compared by kind: the reference words them shortly).
func sameSplit(t *testing.T, text string) {
	t.Helper()
	fm, body, line, warn := splitFrontmatter(text)
	rfm, rbody, rline, rwarn := referenceSplit(text)
	kind := func(w string) string {
		switch {
		case w == "":
			return ""
		case strings.HasPrefix(w, "malformed"):
			return "malformed"
		}
		return "expands"
	}
	if !reflect.DeepEqual(fm, rfm) || body != rbody || line != rline || kind(warn) != kind(rwarn) {
		t.Fatalf("%q:\n got %#v, body %q, line %d, warning %q\nwant %#v, body %q, line %d, warning %q",
			text, fm, body, line, warn, rfm, rbody, rline, rwarn)
	}
}

func TestFenceMatchesAdrgFrontmatter(t *testing.T) {
	cases := []string{
		"", "---", "---\n", "--- \t", "---\n---", "---\n---\n", "---\n---\nbody", "---\n--- \nbody",
		"---\nk: v\n---\nbody\n", "---\nk: v\n---", "---\nk: v\n", "---\nk: v", "---\n\n---\n",
		"---\nk: v\n  ---  \nbody", "---\nk: v\n\t---\nbody", "---\nk: v\n----\nmore: 1\n---\nbody",
		"---\nk: v\n...\n---\nb", "---\nx: [\n---\nbody", "---\nx: [\nno close", "---\na: &x [1,2]\nb: *x\n---\n",
		"---\n- list\n---\n", "---\nk: |\n  multi\n  ---\n---\n", "---\u00a0\nk: v\n---\nb", "---\nk: v\n---\u00a0\nb",
		"---\nk: v\n\u2028---\nb", "---\nk: v\n---\n---\nb", "\n---\nk: v\n---\n", " ---\nk: v\n---\n",
		"---\nk: v\r\n---\r\nb", "---\n" + strings.Repeat("k: v\n", 100) + "---\n" + strings.Repeat("body\n", 1000),
	}
	for _, text := range cases {
		sameSplit(t, text)
	}
	// Every note of the test vault, and random damage to them.
	rng := rand.New(rand.NewPCG(5, 6))
	root := filepath.Join("..", "testdata", "vault")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(string(b), "\r\n", "\n")
		sameSplit(t, text)
		for range 20 {
			cut := []byte(text)
			for range 1 + rng.IntN(3) {
				if len(cut) == 0 {
					break
				}
				i := rng.IntN(len(cut))
				switch rng.IntN(3) {
				case 0:
					cut = cut[:i]
				case 1:
					cut[i] = "-\n :[ \t"[rng.IntN(7)]
				default:
					cut = append(cut[:i:i], append([]byte("\n---\n"), cut[i:]...)...)
				}
			}
			sameSplit(t, string(cut))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzFenceMatchesAdrgFrontmatter: for any text, the hand-written fence
// and adrg/frontmatter split it the same way.
func FuzzFenceMatchesAdrgFrontmatter(f *testing.F) {
	for _, seed := range []string{"---\nk: v\n---\nbody", "---\n--- \n", "---\nx: [\n---\n", "---\na\n---"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) { sameSplit(t, text) })
}
