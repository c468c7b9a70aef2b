package rankers

// The ranking constants of obsidian_search, in one place. Every value here
// was measured with `enquire-mcp eval` (docs/benchmarks.md has the tables
// and commands); change one only with a new measurement. The per-field
// weights of TF-IDF and of BM25's columns are one set,
// index.DefaultFieldWeights (BM25's are part of the index: its in-memory
// copy holds counts weighted with them); BM25's k1 and b are here.
const (
	// BM25K1 and BM25B are BM25's term saturation and length
	// normalisation (index.BM25Params, passed with every search): FTS5's
	// and the textbook 1.2 and 0.75. b = 0.3 beat 0.75 on the development
	// sets it was chosen on (+0.038 nDCG@10 summed over eleven) but lost
	// on the six benchmark datasets (−0.015 summed) and on three held-out
	// hand-written sets (−2.8, −0.2 and −0.7 points).
	BM25K1 = 1.2
	BM25B  = 0.75

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
	// WeightBuiltinEmbeddings is the weight of the built-in model (a
	// static table distilled from all-MiniLM-L6-v2, embed/minilm): 0. It
	// is a far better retriever alone than the GloVe table it replaced,
	// but every weight tried (0.25, 0.5, 1) lost more than 0.01 nDCG@10
	// on zettelkasten's links, so none passed the rule of
	// docs/freeze-model2vec.md. It still reports its rank in per_signal
	// and finds similar notes.
	WeightBuiltinEmbeddings = 0
	// WeightVaultEmbeddings is the weight of the model learned from the
	// vault (embed/learned): 0 as well. It is a far better dense retriever
	// than GloVe was on every tuning set, but every positive weight tried
	// (0.1, 0.25, 0.5, 1) lowered the fused nDCG@10 on zettelkasten and
	// obsidian-help-en; RRF at k 60 lets even a 0.1 vote reorder the top.
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

	// ProximityAlpha, ProximityPool, ProximityMaxBytes and
	// ProximityMaxDist shape term proximity (Proximity; Tao & Zhai 2007):
	// the bonus of a MinDist δ is log(1 + exp(−δ)/ProximityAlpha) (their
	// α = 0.3, not tuned); only the first ProximityPool candidates are
	// read, each up to ProximityMaxBytes of its body (reading is the
	// cost: zettelkasten holds notes of up to 550 KB); the proximity
	// signal lists a note only when two distinct query terms are at most
	// ProximityMaxDist positions apart.
	ProximityAlpha    = 0.3
	ProximityPool     = 30
	ProximityMaxBytes = 8 << 10
	ProximityMaxDist  = 8
	// WeightProximity is the proximity signal's RRF weight: 0, so it does
	// not run. As a vote of its own (the lexical top 100 re-ranked by
	// MinDist, pool 100) it lost at every weight tried: 0.1 −0.024, 0.5
	// −0.198 and 1 −0.265 nDCG@10 summed over 19 tuning sets; a note it does not
	// list loses a whole vote, which outweighs BM25's rank differences
	// near the top.
	WeightProximity = 0
	// BoostDepth and BoostStrength bound the graph boost (graph.Boost):
	// the top BoostDepth fused hits take part, and a hit gains at most
	// BoostStrength of its own score (also the margin that makes another
	// hit "clearly better"). 0.05 is the strength the rule of
	// docs/freeze-real-model.md chose on link-derived and hand-written
	// development sets together: it gained on both kinds over 0.02,
	// while 0.1 gained on the link sets only and lost 0.006 on the
	// question sets.
	BoostDepth    = 30
	BoostStrength = 0.05

	// WeightModelBM25, WeightModelTFIDF, WeightModelEmbeddings,
	// WeightModelFeedback and BoostStrengthModel are the defaults with a
	// sentence-transformer's vectors (search.DefaultWeights,
	// search.DefaultBoost), decided by the rule in
	// docs/freeze-real-model.md on its development sets: equal weights
	// (2:1:1 and 1:1:2 scored lower, and 1:1:2 lost 0.04 on the
	// zettelkasten link set), feedback kept (+0.008 over none) and
	// boost 0.05 (0.1 within 0.001 of it; no boost lost 0.016).
	WeightModelBM25       = 1
	WeightModelTFIDF      = 1
	WeightModelEmbeddings = 1
	WeightModelFeedback   = 0.5
	BoostStrengthModel    = 0.05

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

	// LinkSuggestPool is how many candidates, best by trigram overlap,
	// package linksuggest compares by edit distance for one suggestion:
	// enough that its first choice agrees with the snapshot's full scan
	// on the test vault, few enough to suggest for every unresolved link
	// of a page.
	LinkSuggestPool = 64
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

// Weights of obsidian_find_similar's signals (package similar). Every
// signal is a similarity in [0, 1] and the score is their weighted mean
// over the signals available, so a vault without embeddings still scores
// in [0, 1]. The text signals weigh most because they say what the notes
// are about; tags are the author's own grouping; the link signals are
// evidence of relatedness rather than likeness, and a direct link alone
// (a hub linking everything) says least.
const (
	SimilarWeightContent    = 0.40
	SimilarWeightEmbeddings = 0.20
	SimilarWeightTags       = 0.15
	SimilarWeightLinks      = 0.10
	SimilarWeightCoCitation = 0.10
	SimilarWeightDirect     = 0.05
)

// How obsidian_context_pack (package contextpack) shares its token budget.
// Not tuned on a query set (there is no judged bundle set): set by hand so
// a bundle covers several notes before it deepens one. The notes share
// what is left in proportion to 1/√position, so better hits get more room
// and unused room flows down.
const (
	// PackBlocksPerNote caps the passages of one note in block mode.
	PackBlocksPerNote = 3
	// PackBacklinksPerNote caps the backlink lines listed per note.
	PackBacklinksPerNote = 5
	// PackMinPassage is the room in tokens a note gets at least while the
	// budget lasts: less is not worth a section.
	PackMinPassage = 32
	// PackBacklinkShare: the backlinks keep at most 1/PackBacklinkShare
	// of the budget, so they never crowd out the notes they point to.
	PackBacklinkShare = 5
)
