package search

import (
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

func TestMostlyCJK(t *testing.T) {
	tests := []struct {
		query string
		want  bool
	}{
		{"", false},
		{"how do I link notes", false},
		{"如何在笔记之间创建链接", true},
		{"Obsidian 的插件怎么安装呢", true}, // 8 Latin letters, 8 CJK
		{"Obsidian 的插件怎么安装", false}, // 8 Latin letters, 7 CJK
		{"Obsidian plugin 安装", false},
		{"ノートにタグを付けます", true},
		{"노트 사이의 링크", true},
		{"2026 ??? !!!", false},
	}
	for _, tt := range tests {
		if got := mostlyCJK(tt.query); got != tt.want {
			t.Errorf("mostlyCJK(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
}

func TestTransformerDefaults(t *testing.T) {
	w := DefaultWeights("transformer:all-MiniLM-L6-v2@0123456789ab/384")
	for sig, want := range map[string]float64{rankers.SignalBM25: rankers.WeightModelBM25, rankers.SignalTFIDF: rankers.WeightModelTFIDF,
		rankers.SignalEmbeddings: rankers.WeightModelEmbeddings, rankers.SignalFeedback: rankers.WeightModelFeedback} {
		if w[sig] != want {
			t.Errorf("transformer weight of %s = %g, want %g", sig, w[sig], want)
		}
	}
	if b := DefaultBoost("transformer:all-MiniLM-L6-v2@0123456789ab/384"); b.Strength != rankers.BoostStrengthModel || b.Depth != rankers.BoostDepth {
		t.Errorf("transformer boost %+v", b)
	}
	for _, id := range []string{"", "builtin:model2vec-minilm-l6-256@1/256", "ollama:nomic-embed-text/768"} {
		if b := DefaultBoost(id); b != graph.DefaultBoost {
			t.Errorf("boost of %q = %+v, want %+v", id, b, graph.DefaultBoost)
		}
	}
}

// englishModel is the toy embedder declared English-only.
type englishModel struct{ *embedtest.Model }

func (englishModel) EnglishOnly() bool { return true }

// TestEnglishOnlyModelHasNoVoteOnCJK: the dense signal alone can find
// Garage.md for "automobile" (no word in common). In a query written
// mostly in CJK an English-only model loses its vote (it still reports
// its ranks), any other model keeps it, and an English query keeps it.
func TestEnglishOnlyModelHasNoVoteOnCJK(t *testing.T) {
	const cjk = "汽车保养汽车保养汽车保养 automobile"
	tests := []struct {
		name    string
		english bool
		query   string
		found   bool
	}{
		{"any model, CJK query", false, cjk, true},
		{"English-only model, CJK query", true, cjk, false},
		{"English-only model, English query", true, "automobile", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "Garage.md", "# Garage\n\nMy car needs new tyres and an oil change.\n")
			write(t, dir, "Kitchen.md", "# Kitchen\n\nThe sourdough loaf rose well today.\n")
			m := &embedtest.Model{Name: "a"}
			e := withEmbeddings(t, dir, m, m)
			if tt.english {
				e.opts.Embedder = englishModel{m}
			}
			res := mustSearch(t, e, Request{Query: tt.query})
			found := len(res.Hits) > 0 && res.Hits[0].Path == "Garage.md"
			if found != tt.found {
				t.Errorf("Garage.md first: %v, want %v (hits %q)", found, tt.found, hitPaths(res))
			}
		})
	}
}
