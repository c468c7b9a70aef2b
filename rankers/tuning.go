package rankers

// The ranking constants of obsidian_search, in one place. Every value here
// was measured with `enquire-mcp eval` (docs/benchmarks.md has the tables
// and commands); change one only with a new measurement. The per-field
// TF-IDF weights are DefaultFieldWeights (tfidf.go); BM25's column weights
// live with the FTS5 query (index/query.go), the one place SQLite reads
// them.
const (
	// DefaultRRFK is the usual Reciprocal Rank Fusion constant:
	// score = Σ weight_s / (DefaultRRFK + rank_s). Lower values (20, 5)
	// were measured and did not help.
	DefaultRRFK = 60

	// PivotSlope is the slope of TF-IDF's pivoted length normalisation
	// (see pivoted): 1 is plain cosine. 0.5 was the best of 1, 0.7, 0.5,
	// 0.4, 0.3 summed over the tuning sets (vault-links, SciFact train,
	// enquire-bench).
	PivotSlope = 0.5

	// WeightBM25, WeightTFIDF and WeightEmbeddings are the default RRF
	// weights (search.DefaultWeights). They were picked by hand from a
	// handful of settings on the tuning sets, not learned.
	WeightBM25       = 2
	WeightTFIDF      = 1
	WeightEmbeddings = 1
	// WeightBuiltinEmbeddings is the weight of the built-in GloVe model:
	// 0, because every positive weight lowered nDCG@10 on the tuning sets
	// (it still reports its rank in per_signal).
	WeightBuiltinEmbeddings = 0
	// WeightVaultEmbeddings is the weight of the model learned from the
	// vault (embed/learned): 0 as well. It is a far better dense retriever
	// than GloVe on every tuning set, but every positive weight tried
	// (0.1, 0.25, 0.5, 1) lowered the fused nDCG@10 on zettelkasten and
	// obsidian-help-en; RRF at k 60 lets even a 0.1 vote reorder the top
	// (docs/benchmarks.md, "A dense model learned from the vault").
	WeightVaultEmbeddings = 0

	// FeedbackDocs, FeedbackTerms and FeedbackBeta shape pseudo-relevance
	// feedback (TFIDF.Feedback): the first FeedbackDocs fused notes give
	// FeedbackTerms expansion terms weighing FeedbackBeta of the query.
	// WeightFeedback is its RRF weight. Picked from m ∈ {3,5,8},
	// n ∈ {20,30,50}, β ∈ {0.2,0.3,0.5}, weight ∈ {0.5,1} on the tuning sets
	// (docs/benchmarks.md).
	FeedbackDocs   = 8
	FeedbackTerms  = 30
	FeedbackBeta   = 0.3
	WeightFeedback = 0.5

	// BoostDepth and BoostStrength bound the graph boost (graph.Boost):
	// the top BoostDepth fused hits take part, and a hit gains at most
	// BoostStrength of its own score. Set by design first; a sweep of
	// strength {0, 0.02, 0.05, 0.1, 0.2} × depth {10, 30} on the tuning
	// sets later found 0.1 and 30 best (docs/benchmarks.md, fourth pass),
	// but on the vault-links sets most of the boost's gain is link text
	// (the linking note ranks high and the boost lifts its target, the
	// answer), and on small hand-written sets it cost the fused default
	// 2–3 points: a larger hand-written set should settle the strength
	// (docs/benchmarks.md, "Hand-written held-out queries").
	BoostDepth    = 30
	BoostStrength = 0.1

	// ConfidentMargin is PinConfident's test of a confident lexical signal:
	// its first note scores at least 1+ConfidentMargin times its second.
	// It is the boost's "clearly better" margin (BoostStrength), not a
	// fitted value; 0.05, 0.2, 0.3 and 0.5 were measured too
	// (docs/benchmarks.md, "Issue 12, fifth pass"). The pin is an option
	// (serve/eval --confident-pin), off by default: it lost on four
	// held-out hand-written query sets (every query it moved, it moved
	// down).
	ConfidentMargin = BoostStrength

	// DefaultPrefilterLimit is the chunk count above which the dense
	// signal scores only the notes the lexical signals found (their top
	// PrefilterDepth each) instead of every vector, so that query cost
	// stays flat as a vault grows (serve --prefilter-limit).
	DefaultPrefilterLimit = 50_000
	PrefilterDepth        = 1000

	// RelatedMax caps the related notes of a search with expand;
	// RelatedFromHits is how many top hits they are drawn from, and
	// RelatedTagMaxNotes the most notes a tag may carry to relate notes
	// (a tag on more says little about two notes).
	RelatedMax         = 10
	RelatedFromHits    = 5
	RelatedTagMaxNotes = 20
)

// The recency and importance blend of obsidian_search (search/recency.go):
// final = (1 − wr − wi)·relevance + wr·recency + wi·importance, where
// relevance is the fused score over the best candidate's, recency
// 0.5^(age/half-life) and importance the frontmatter value over
// MaxImportance. Both weights default to 0, which skips the blend.
const (
	// MaxImportance is the top of the frontmatter importance scale (0–10).
	MaxImportance = 10
	// NeutralImportance is the importance of a note without a valid
	// importance value: the middle of the scale, so an unrated note is
	// neither pushed up nor down against rated ones on average.
	NeutralImportance = 5
)
