// Package learned learns a static word-vector model from the vault itself
// (the "vault" embedding model): terms co-occurring within a few words are
// counted, the counts turned into positive pointwise mutual information,
// and the matrix reduced by randomized truncated SVD (an LSA-style model,
// Levy, Goldberg and Dagan, 2015). Texts are embedded like the built-in
// model, with SIF weights and the common component removed (package
// static), so names, jargon, CJK grams and every language of the vault get
// vectors, which the built-in English table lacks.
//
// Learning is pure Go, deterministic (a fixed seed for the random
// projection; sums in a fixed order) and takes seconds on a 13,000-note
// vault. The model is saved next to the index; its ID carries a hash of
// the table, so vectors of two fits never mix.
package learned
