package remote

import (
	"slices"
	"strings"
)

// Prefixes are the strings a model expects before query and document
// texts.
type Prefixes struct {
	Query, Document string
}

// Sources for the known prefixes (checked 2026):
//
//   - nomic-embed-text (v1, v1.5, v2-moe): "Embedding text with
//     nomic-embed-text requires task instruction prefixes at the beginning
//     of each string", search_query for questions and search_document for
//     indexed text.
//     https://huggingface.co/nomic-ai/nomic-embed-text-v1.5 (and its GGUF
//     card, commit f750a25), https://docs.trychroma.com/integrations/embedding-models/nomic
//   - E5 (e5-*-v2, multilingual-e5-*): FAQ "Do I need to add the prefix
//     'query: ' and 'passage: ' to input texts? Yes, this is how the model
//     is trained". The -instruct variants (e5-mistral-7b-instruct,
//     multilingual-e5-large-instruct) use an instruction instead and are
//     deliberately not matched.
//     https://databricks.github.io/databricks-ml-examples/llm-models/embedding/e5-v2,
//     https://docs.sambanova.ai/sambastudio/latest/e5-large.html
//   - mxbai-embed-large(-v1): "you have to provide the prompt `Represent
//     this sentence for searching relevant passages:` for query ...
//     Besides that you don't need any prompt"; Ollama's own usage example
//     prepends it to the query.
//     https://huggingface.co/mixedbread-ai/mxbai-embed-large-v1,
//     https://ollama.com/library/mxbai-embed-large
//   - BGE English (bge-{small,base,large}-en[-v1.5], Ollama's bge-large):
//     the model list's "query instruction for retrieval" column reads
//     "Represent this sentence for searching relevant passages:"; passages
//     take none. v1.5 works without it but it still helps short queries.
//     bge-m3 takes no instruction and the zh models a Chinese one, so
//     neither is matched.
//     https://pypi.org/project/FlagEmbedding/1.0.7,
//     https://huggingface.co/BAAI/bge-large-en-v1.5,
//     https://docs.langchain.com/oss/python/integrations/text_embedding/bge_huggingface
const (
	nomicQuery    = "search_query: "
	nomicDocument = "search_document: "
	e5Query       = "query: "
	e5Passage     = "passage: "
	retrievalHint = "Represent this sentence for searching relevant passages: "
)

// KnownPrefixes returns the prefixes documented for model, matched on its
// name without organisation ("BAAI/") or tag (":latest"), case-insensitive.
// Unknown models, and known families that need no or other prefixes,
// return ok false.
func KnownPrefixes(model string) (p Prefixes, ok bool) {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	words := strings.FieldsFunc(name, func(r rune) bool {
		return r == '-' || r == '_' || r == '.'
	})
	has := func(w ...string) bool {
		return slices.ContainsFunc(words, func(x string) bool { return slices.Contains(w, x) })
	}
	switch {
	case strings.Contains(name, "nomic-embed-text"):
		return Prefixes{Query: nomicQuery, Document: nomicDocument}, true
	case strings.Contains(name, "mxbai-embed-large"):
		return Prefixes{Query: retrievalHint}, true
	case has("e5") && !has("instruct", "mistral"):
		return Prefixes{Query: e5Query, Document: e5Passage}, true
	case has("bge") && has("small", "base", "large") && !has("zh", "reranker", "m3", "icl"):
		return Prefixes{Query: retrievalHint}, true
	}
	return Prefixes{}, false
}

// prefixesFor resolves the prefixes for cfg: explicit fields win, empty
// ones fall back to the known prefixes unless NoAutoPrefix is set.
func prefixesFor(cfg Config) Prefixes {
	p := Prefixes{Query: cfg.QueryPrefix, Document: cfg.DocumentPrefix}
	if cfg.NoAutoPrefix {
		return p
	}
	known, _ := KnownPrefixes(cfg.Model)
	if p.Query == "" {
		p.Query = known.Query
	}
	if p.Document == "" {
		p.Document = known.Document
	}
	return p
}
