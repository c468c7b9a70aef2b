package onnx

import "strings"

// Kind says what a model computes.
type Kind int

// Kinds of models.
const (
	// Embedding models output one vector per text.
	Embedding Kind = iota
	// Reranker models (cross-encoders) output one relevance score per
	// (query, passage) pair.
	Reranker
)

func (k Kind) String() string {
	if k == Reranker {
		return "reranker"
	}
	return "embedding"
}

// Spec describes a known model: where install-model fetches it and how to
// run it. Files lists what install-model downloads, in the repository's
// layout. The facts here (repository, files, dimension, pooling,
// prefixes, maximum length) are those the model cards publish; they could
// not be checked by a download where this table was written, so no
// revision or digest is pinned (see README).
type Spec struct {
	Name, Repo  string
	Kind        Kind
	Dim         int // 0 for rerankers
	Pooling     Pooling
	QueryPrefix string
	DocPrefix   string
	MaxLength   int
	// English is true for a model trained on English text alone.
	English     bool
	Description string
	Files       []string
	// PureGo says the pure-Go encoder runs the model (a BERT embedding
	// model), so the default binary needs no ONNX Runtime for it.
	PureGo bool
}

// ModelFile is the ONNX graph inside a model folder.
const ModelFile = "onnx/model.onnx"

var hfFiles = []string{ModelFile, "tokenizer.json", "config.json"}

// known lists the transformer models install-model offers.
var known = [...]Spec{
	{Name: "all-MiniLM-L6-v2", Repo: "sentence-transformers/all-MiniLM-L6-v2", Dim: 384, Pooling: Mean, MaxLength: 256, English: true,
		Description: "English, 22M parameters, fast; the common default of sentence-transformers", Files: hfFiles, PureGo: true},
	{Name: "bge-small-en-v1.5", Repo: "BAAI/bge-small-en-v1.5", Dim: 384, Pooling: CLS, MaxLength: 512, English: true,
		QueryPrefix: "Represent this sentence for searching relevant passages: ",
		Description: "English, 33M parameters, stronger retrieval than MiniLM at a similar speed", Files: hfFiles, PureGo: true},
	{Name: "multilingual-e5-small", Repo: "intfloat/multilingual-e5-small", Dim: 384, Pooling: Mean, MaxLength: 512,
		QueryPrefix: "query: ", DocPrefix: "passage: ",
		Description: "about 100 languages, 118M parameters (large vocabulary), query:/passage: prefixes", Files: hfFiles},
	{Name: "ms-marco-MiniLM-L-6-v2", Repo: "cross-encoder/ms-marco-MiniLM-L-6-v2", Kind: Reranker, MaxLength: 512,
		Description: "English reranker, 22M parameters, fast", Files: hfFiles},
	{Name: "bge-reranker-base", Repo: "BAAI/bge-reranker-base", Kind: Reranker, MaxLength: 512,
		Description: "English and Chinese reranker, 278M parameters, slower and stronger", Files: hfFiles},
}

// Known lists the transformer models install-model can fetch.
func Known() []Spec {
	return append([]Spec(nil), known[:]...)
}

// Lookup finds a known model by name, ignoring case.
func Lookup(name string) (Spec, bool) {
	for _, s := range known {
		if strings.EqualFold(s.Name, name) {
			return s, true
		}
	}
	return Spec{}, false
}
